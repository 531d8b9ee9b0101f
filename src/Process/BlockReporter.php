<?php

declare(strict_types=1);

namespace Bobbin\Process;

use Bobbin\Async\BlockedCode;
use Bobbin\Async\LoopHold;
use Bobbin\Http\RunningRequest;
use Bobbin\Metrics\Collector;
use Bobbin\Metrics\MetricFamily;
use Bobbin\Metrics\MetricType;
use Closure;
use Psr\Log\LoggerInterface;

/**
 * The worker's side of blocking-call detection: one warning per request whose code held the
 * loop past --block-threshold, naming the request (method, target, id), counted in
 * bobbin_loop_blocks_total. By default from what the loop saw after the fact (held(): nothing
 * was interrupted); with --block-stacks, the first report of a request is the one BlockProbe's
 * signal made while the code still ran (report()), with its PHP stack.
 */
final class BlockReporter implements Collector
{
    /** Request ids already reported; forgotten in bulk past this many (ids are never reused). */
    private const REMEMBERED = 1024;

    /** @var array<string, true> */
    private array $reported = [];
    private int $reports = 0;
    /**
     * Code is blamed for a long turn of the loop when it has held at least this share of it:
     * the loop's own dispatch before it (reading the socket, an accept) takes a little of a turn
     * the watchdog counts whole.
     */
    private const MOST_OF_THE_TURN = 0.9;
    /** A probe that came before its hold reached the threshold: its stack, for when that hold ends past it (held()). */
    private ?BlockedCode $earlyProbe = null;

    /** @param Closure(object): ?RunningRequest $requestRunningIn the request a fiber serves or served last (Server::requestRunningIn) */
    public function __construct(
        private readonly LoggerInterface $logger,
        private readonly Closure $requestRunningIn,
        private readonly float $thresholdSeconds,
    ) {
    }

    /** One fiber or callback held the loop past the threshold and has let go (Async::reportLoopHolds()). */
    public function held(LoopHold $hold): void
    {
        $probe = $this->earlyProbe;
        $this->earlyProbe = null;
        $request = $hold->task === null ? null : ($this->requestRunningIn)($hold->task);
        if (!$this->firstReportOf($request)) {
            return;
        }
        if ($probe !== null && $probe->since === $hold->since) {
            // The stack was taken in this very hold, while it still ran.
            $this->logStack($probe, $hold->seconds, $request);

            return;
        }
        $origin = $hold->callbackOrigin();
        $this->logger->warning(
            'The loop of worker {pid} was held for {seconds} s by {what} without yielding (--block-threshold is {threshold} s): '
            . 'every other request of this worker waited meanwhile. A blocking call? --block-stacks logs the PHP stack of such code',
            [
                'pid' => \getmypid(),
                'seconds' => \round($hold->seconds, 3),
                'what' => $request !== null
                    ? \sprintf('%s %s (request %s)', $request->method, $request->target, $request->id)
                    : ($origin === '' ? 'a fiber outside any request' : 'code outside any request (a callback from ' . $origin . ')'),
                'threshold' => $this->thresholdSeconds,
            ],
        );
    }

    /** BlockProbe caught code holding the loop past the threshold (--block-stacks): its stack. */
    public function report(BlockedCode $code): void
    {
        if ($code->heldSeconds < $this->thresholdSeconds && $code->heldSeconds < self::MOST_OF_THE_TURN * $code->turnSeconds) {
            // The loop's turn was long, but the code running now took the loop late in it: many
            // short tasks in one turn (the loop lag figures show that, no one to blame) — or a
            // task only starting, whose stack is kept for its hold's end, should that come past
            // the threshold (held()). Code that has held most of the turn is reported now even a
            // little under the threshold: the watchdog's signal cuts a sleep() short, so that
            // code's hold may never reach it.
            $this->earlyProbe = $code;

            return;
        }
        $request = $code->task === null ? null : ($this->requestRunningIn)($code->task);
        if (!$this->firstReportOf($request)) {
            return;
        }
        $this->logStack($code, $code->heldSeconds, $request);
    }

    private function logStack(BlockedCode $code, float $heldSeconds, ?RunningRequest $request): void
    {
        $this->logger->warning(
            '{what} has held the loop of worker {pid} for {seconds} s without yielding (--block-threshold is {threshold} s): '
            . 'every other request of this worker waits meanwhile. A blocking call? It was at {at}; its stack is below',
            [
                'what' => $request === null ? 'Code outside any request' : \sprintf('%s %s (request %s)', $request->method, $request->target, $request->id),
                'pid' => \getmypid(),
                'seconds' => \round($heldSeconds, 3),
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
            'Times code held a worker\'s loop past --block-threshold without yielding (each logged with its request; with --block-stacks, its stack)',
            [[[], (float) $this->reports]],
            true,
        );
    }

    /** Whether a report about $request is the first (at most one per request); counts it. */
    private function firstReportOf(?RunningRequest $request): bool
    {
        if ($request !== null) {
            if (isset($this->reported[$request->id])) {
                return false;
            }
            if (\count($this->reported) >= self::REMEMBERED) {
                $this->reported = [];
            }
            $this->reported[$request->id] = true;
        }
        $this->reports++;

        return true;
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
