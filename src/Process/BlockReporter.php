<?php

declare(strict_types=1);

namespace Bobbin\Process;

use Bobbin\Async\BlockedCode;
use Bobbin\Http\RunningRequest;
use Bobbin\Metrics\Collector;
use Bobbin\Metrics\MetricFamily;
use Bobbin\Metrics\MetricType;
use Closure;
use Psr\Log\LoggerInterface;

/**
 * The worker's side of blocking-call detection: turns what BlockProbe found into one warning
 * naming the request (method, target, id) and the PHP stack of the code that held the loop, at
 * most once per request, and counts them (bobbin_loop_blocks_total).
 */
final class BlockReporter implements Collector
{
    /** Request ids already reported; forgotten in bulk past this many (ids are never reused). */
    private const REMEMBERED = 1024;

    /** @var array<string, true> */
    private array $reported = [];
    private int $reports = 0;

    /** @param Closure(object): ?RunningRequest $requestRunningIn the request a fiber serves (Server::requestRunningIn) */
    public function __construct(
        private readonly LoggerInterface $logger,
        private readonly Closure $requestRunningIn,
        private readonly float $thresholdSeconds,
    ) {
    }

    public function report(BlockedCode $code): void
    {
        if ($code->heldSeconds < $this->thresholdSeconds) {
            // The loop's turn was long, but no one fiber or callback held it that long (many
            // short ones in one turn): the loop lag figures show that, nothing here to blame.
            return;
        }
        $request = $code->task === null ? null : ($this->requestRunningIn)($code->task);
        if ($request !== null) {
            if (isset($this->reported[$request->id])) {
                return;
            }
            if (\count($this->reported) >= self::REMEMBERED) {
                $this->reported = [];
            }
            $this->reported[$request->id] = true;
        }
        $this->reports++;
        $this->logger->warning(
            '{what} has held the loop of worker {pid} for {seconds} s without yielding (--block-threshold is {threshold} s): '
            . 'every other request of this worker waits meanwhile. A blocking call? It was at {at}; its stack is below',
            [
                'what' => $request === null ? 'Code outside any request' : \sprintf('%s %s (request %s)', $request->method, $request->target, $request->id),
                'pid' => \getmypid(),
                'seconds' => \round($code->heldSeconds, 3),
                'threshold' => $this->thresholdSeconds,
                'at' => $code->file === '' ? 'an internal function' : $code->file . ':' . $code->line,
                'stack' => self::stack($code),
            ],
        );
    }

    public function collect(): iterable
    {
        yield new MetricFamily(
            'bobbin_loop_blocks_total',
            MetricType::Counter,
            'Times code held a worker\'s loop past --block-threshold without yielding (each logged with its request and stack)',
            [[[], (float) $this->reports]],
            true,
        );
    }

    /** The stack in the shape of PHP's own traces: "#0 file(line): Class->function()". */
    private static function stack(BlockedCode $code): string
    {
        $lines = [];
        foreach ($code->trace as $i => $frame) {
            $lines[] = \sprintf(
                '#%d %s: %s%s%s()',
                $i,
                isset($frame['file']) ? $frame['file'] . '(' . ($frame['line'] ?? 0) . ')' : '[internal function]',
                $frame['class'] ?? '',
                $frame['type'] ?? '',
                $frame['function'],
            );
        }

        return \implode("\n", $lines);
    }
}
