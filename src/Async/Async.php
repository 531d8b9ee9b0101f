<?php

declare(strict_types=1);

namespace Bobbin\Async;

use Bobbin\Async\Internal\FutureState;
use Closure;
use Revolt\EventLoop;
use Throwable;

/**
 * The thin static facade of the fiber runtime. Nothing outside src/Async suspends a fiber or
 * touches the loop's I/O polling except through these calls and the classes beside them.
 */
final class Async
{
    /**
     * Runs $task in its own fiber, starting on the next loop tick.
     *
     * @template T
     * @param Closure(mixed...): T $task
     * @return Future<T>
     */
    public static function run(Closure $task, mixed ...$args): Future
    {
        ErrorReporter::installOnLoop();
        /** @var FutureState<T> $state */
        $state = new FutureState();
        EventLoop::queue(static function () use ($state, $task, $args): void {
            try {
                $state->complete($task(...$args));
            } catch (Throwable $error) {
                $state->fail($error);
            }
        });

        return new Future($state);
    }

    /** Suspends the current fiber (or runs the loop, outside a fiber) for $seconds. */
    public static function delay(float $seconds, ?Cancellation $cancellation = null): void
    {
        $cancellation?->throwIfRequested();
        $suspension = EventLoop::getSuspension();
        $done = false;
        $timerId = EventLoop::delay(\max(0.0, $seconds), static function () use ($suspension, &$done): void {
            if (!$done) {
                $done = true;
                $suspension->resume();
            }
        });
        $cancellationId = $cancellation?->subscribe(static function (CancelledException $e) use ($suspension, &$done): void {
            if (!$done) {
                $done = true;
                $suspension->throw($e);
            }
        });
        try {
            $suspension->suspend();
        } finally {
            EventLoop::cancel($timerId);
            if ($cancellationId !== null) {
                $cancellation->unsubscribe($cancellationId);
            }
        }
    }

    /**
     * Suspends until $stream is readable. For a stream awaited many times (a connection), a
     * StreamWatcher reuses its loop watchers and is cheaper.
     *
     * @param resource $stream
     * @throws TimeoutException|CancelledException
     */
    public static function awaitReadable($stream, ?float $timeout = null, ?Cancellation $cancellation = null): void
    {
        self::awaitStream(true, $stream, $timeout, $cancellation);
    }

    /**
     * @param resource $stream
     * @throws TimeoutException|CancelledException
     */
    public static function awaitWritable($stream, ?float $timeout = null, ?Cancellation $cancellation = null): void
    {
        self::awaitStream(false, $stream, $timeout, $cancellation);
    }

    /**
     * Applies $mapper to every input with at most $concurrency running at once; results keep the
     * inputs' keys. The first failure cancels nothing already running but is thrown once all
     * running calls are done.
     *
     * @template K of array-key
     * @template V
     * @template R
     * @param iterable<K, V> $inputs
     * @param Closure(V, K): R $mapper
     * @return array<K, R>
     */
    public static function map(iterable $inputs, Closure $mapper, int $concurrency, ?Cancellation $cancellation = null): array
    {
        if ($concurrency < 1) {
            throw new \ValueError('Concurrency must be at least 1');
        }
        $iterator = (static fn () => yield from $inputs)();
        $results = [];
        $firstError = null;
        $worker = static function () use ($iterator, $mapper, $cancellation, &$results, &$firstError): void {
            while ($firstError === null && $iterator->valid()) {
                $key = $iterator->key();
                $value = $iterator->current();
                $iterator->next();
                $cancellation?->throwIfRequested();
                try {
                    $results[$key] = $mapper($value, $key);
                } catch (Throwable $e) {
                    $firstError ??= $e;
                }
            }
        };
        $workers = [];
        for ($i = 0; $i < $concurrency; $i++) {
            $workers[] = self::run($worker);
        }
        Future::awaitAll($workers, $cancellation);
        if ($firstError !== null) {
            throw $firstError;
        }

        return $results;
    }

    /** @param resource $stream */
    private static function awaitStream(bool $read, $stream, ?float $timeout, ?Cancellation $cancellation): void
    {
        $cancellation?->throwIfRequested();
        $suspension = EventLoop::getSuspension();
        // Readiness, timeout and cancellation can all fire in one tick: only the first wakes us.
        $done = false;
        $settle = static function (?\Throwable $error) use ($suspension, &$done): void {
            if ($done) {
                return;
            }
            $done = true;
            $error === null ? $suspension->resume() : $suspension->throw($error);
        };
        $onReady = static fn () => $settle(null);
        $watcherId = $read ? EventLoop::onReadable($stream, $onReady) : EventLoop::onWritable($stream, $onReady);
        $timerId = $timeout === null ? null : EventLoop::delay(
            \max(0.0, $timeout),
            static fn () => $settle(new TimeoutException(
                \sprintf('The stream did not become %s within %.3f s', $read ? 'readable' : 'writable', $timeout),
            )),
        );
        $cancellationId = $cancellation?->subscribe($settle);
        try {
            $suspension->suspend();
        } finally {
            EventLoop::cancel($watcherId);
            if ($timerId !== null) {
                EventLoop::cancel($timerId);
            }
            if ($cancellationId !== null) {
                $cancellation->unsubscribe($cancellationId);
            }
        }
    }
}
