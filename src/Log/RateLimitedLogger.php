<?php

declare(strict_types=1);

namespace Bobbin\Log;

use Bobbin\Async\Timer;
use Psr\Log\AbstractLogger;
use Psr\Log\LoggerInterface;

/**
 * Keeps a log readable, and a disk from filling, through an outage: the first record of a kind
 * goes through; the same record again within $window seconds is only counted, and one line
 * "… repeated N times in S s" follows when the window ends. Records are the same when their
 * level and message template are, and their exception (class, message, file, line) — so one
 * failure under many requests is one record — or, without an exception, their context values.
 * A record's request id (context key `request_id`) is not part of what it is: the summary names
 * the requests of the repeats instead (the first REQUEST_IDS of them), so an operator can still
 * match a user's request id to its failure.
 *
 * The stack trace of an exception is written once per distinct exception for the life of the
 * process; later records of it carry one line per exception of the chain.
 */
final class RateLimitedLogger extends AbstractLogger
{
    /** Distinct keys remembered for windows and traces; beyond it the oldest are forgotten. */
    private const MAX_KEYS = 1000;
    /** Request ids of repeats a summary names; beyond it, only how many more. */
    private const REQUEST_IDS = 100;

    /**
     * key => [window start, suppressed count, level, template, context of the first record, request ids of the suppressed]
     *
     * @var array<string, array{float, int, string, string, array<string, mixed>, list<string>}>
     */
    private array $windows = [];
    /** @var array<string, true> exceptions whose trace went out already */
    private array $tracesLogged = [];
    private ?Timer $flusher = null;

    public function __construct(private readonly LoggerInterface $inner, private readonly float $window = 5.0)
    {
        if (!($window > 0.0)) {
            throw new \InvalidArgumentException('The window must be a positive number of seconds');
        }
    }

    public function __destruct()
    {
        $this->flush(\INF);
        $this->flusher?->cancel();
    }

    /** @param array<string, mixed> $context */
    public function log($level, string|\Stringable $message, array $context = []): void
    {
        $level = (string) $level;
        $template = (string) $message;
        $exception = $context['exception'] ?? null;
        $errorKey = $exception instanceof \Throwable ? self::exceptionKey($exception) : '';
        // With an exception, its identity tells repeats apart (the same failure under many
        // requests is one); without one, the whole message does.
        $key = $level . "\0" . $template . "\0" . ($errorKey !== '' ? $errorKey : \serialize(self::scalars($context)));
        $now = \microtime(true);
        if (isset($this->windows[$key])) {
            if ($now - $this->windows[$key][0] < $this->window) {
                if (isset($context['request_id']) && $this->windows[$key][1] < self::REQUEST_IDS && \is_string($context['request_id'])) {
                    $this->windows[$key][5][] = $context['request_id'];
                }
                $this->windows[$key][1]++;
                $this->flushSoon();

                return;
            }
            $this->summarise($key, $now);
        }
        if (\count($this->windows) >= self::MAX_KEYS) {
            $this->flush(\INF);
        }
        $this->windows[$key] = [$now, 0, $level, $template, $context, []];
        if ($errorKey !== '') {
            if (isset($this->tracesLogged[$errorKey])) {
                $context['exception_logged_before'] = true;
            } elseif (\count($this->tracesLogged) < self::MAX_KEYS) {
                $this->tracesLogged[$errorKey] = true;
            }
        }
        $this->inner->log($level, $message, $context);
    }

    /** Writes the summary line of every window that ended before $now (all of them for INF). */
    public function flush(float $now): void
    {
        foreach ($this->windows as $key => [$start]) {
            if ($now - $start >= $this->window) {
                $this->summarise($key, $now);
            }
        }
    }

    private function summarise(string $key, float $now): void
    {
        [$start, $suppressed, $level, $template, $context, $requestIds] = $this->windows[$key];
        unset($this->windows[$key]);
        if ($suppressed === 0) {
            return;
        }
        unset($context['exception']);
        $requests = '';
        if ($requestIds !== []) {
            $more = $suppressed - \count($requestIds);
            $requests = ', for the requests ' . \implode(', ', $requestIds) . ($more > 0 ? ' and ' . \number_format($more) . ' more' : '');
        }
        $this->inner->log($level, $template . ' … repeated {bobbin_repeats} more time(s) in {bobbin_seconds} s{bobbin_requests}', [
            ...$context,
            'bobbin_repeats' => \number_format($suppressed),
            'bobbin_seconds' => \number_format(\min($now, $start + $this->window) - $start, 1),
            'bobbin_requests' => $requests,
        ]);
    }

    /** A summary must not wait for the next record of its kind, which may never come. */
    private function flushSoon(): void
    {
        if ($this->flusher !== null) {
            return;
        }
        $this->flusher = Timer::every($this->window, function (): void {
            $this->flush(\microtime(true));
            if ($this->windows === [] && $this->flusher !== null) {
                $this->flusher->cancel();
                $this->flusher = null;
            }
        })->unreference();
    }

    /**
     * @param array<string, mixed> $context
     * @return array<string, string>
     */
    private static function scalars(array $context): array
    {
        $values = [];
        foreach ($context as $key => $value) {
            if ($key === 'request_id') {
                continue; // every request has its own: repeats are told apart by the rest
            }
            if ($value === null || \is_scalar($value) || $value instanceof \Stringable) {
                $values[$key] = (string) $value;
            }
        }

        return $values;
    }

    private static function exceptionKey(\Throwable $error): string
    {
        return $error::class . "\0" . $error->getMessage() . "\0" . $error->getFile() . "\0" . $error->getLine();
    }
}
