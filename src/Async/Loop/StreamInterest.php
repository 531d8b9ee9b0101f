<?php

declare(strict_types=1);

namespace Bobbin\Async\Loop;

use Revolt\EventLoop\CallbackType;

/**
 * Who waits for which stream: at most one fiber per stream and direction (a direct wait), and
 * any number of readable/writable callbacks. It tells the Poller when a stream's interest
 * starts and ends, and turns what a poll found into fiber resumes and queued callbacks.
 *
 * Streams are keyed by their resource id ((int) $stream), which PHP never reuses within a
 * process; descriptor numbers are the poller's business.
 *
 * @internal
 */
final class StreamInterest
{
    // The counters and the inline waiter's state are untyped, typed by @var: written on every
    // wait, and PHP 8.2's tracing JIT calls a checking helper for each write to a typed property
    // (docs/ASYNC.md, Rules).
    /** @var int fibers waiting directly: they keep the loop running like referenced callbacks */
    public $waiting = 0;
    /** @var int streams watched, counted once per direction: the loop polls while this is above 0 */
    public $watched = 0;
    /**
     * The waiter polling inline: readiness sets $inlineReady instead of resuming it. Untyped
     * (the @var type is the analyser's): a write to a property declared with a class type costs
     * a class check at run time, and this one is written twice per inline poll (docs/ASYNC.md,
     * Rules).
     *
     * @var FiberSuspension<mixed>|null
     */
    public $inlineWaiter = null;
    /** @var bool */
    public $inlineReady = false;
    /** @var ?\Throwable what the poll found wrong with the inline waiter's stream: the waiter throws it itself */
    public $inlineError = null;

    /** @var array<int, FiberSuspension<mixed>> the fiber waiting to read, by key */
    private array $readWaiters = [];
    /** @var array<int, FiberSuspension<mixed>> */
    private array $writeWaiters = [];
    /**
     * Enabled readable callbacks, by key: lists, usually of one (a packed array is half the
     * heap of one keyed by callback id, per watched stream).
     *
     * @var array<int, list<Watch>>
     */
    private array $readWatches = [];
    /** @var array<int, list<Watch>> */
    private array $writeWatches = [];

    /**
     * @param \Closure(Watch, \Throwable): void $failWatch disables a callback whose stream cannot be polled and reports why
     */
    public function __construct(
        public readonly Poller $poller,
        private readonly FiberScheduler $scheduler,
        private readonly \Closure $failWatch,
    ) {
    }

    /**
     * @param resource $stream
     * @param FiberSuspension<mixed> $suspension
     */
    public function addReader(mixed $stream, $suspension): void
    {
        $key = (int) $stream;
        if (isset($this->readWaiters[$key])) {
            throw new \LogicException('Another fiber is already waiting to read this stream');
        }
        if (!isset($this->readWatches[$key])) {
            $this->poller->watchRead($key, $stream); // may throw: then nothing is registered
            $this->watched++;
        }
        $this->readWaiters[$key] = $suspension;
        $this->waiting++;
    }

    /**
     * @param resource $stream
     * @param FiberSuspension<mixed> $suspension
     */
    public function addWriter(mixed $stream, $suspension): void
    {
        $key = (int) $stream;
        if (isset($this->writeWaiters[$key])) {
            throw new \LogicException('Another fiber is already waiting to write this stream');
        }
        if (!isset($this->writeWatches[$key])) {
            $this->poller->watchWrite($key, $stream);
            $this->watched++;
        }
        $this->writeWaiters[$key] = $suspension;
        $this->waiting++;
    }

    /**
     * Withdraws $suspension's read wait; false when it no longer waits there (readiness woke it).
     *
     * @param FiberSuspension<mixed> $suspension
     */
    public function removeReader(int $key, $suspension): bool
    {
        if (($this->readWaiters[$key] ?? null) !== $suspension) {
            return false;
        }
        unset($this->readWaiters[$key]);
        $this->waiting--;
        if (!isset($this->readWatches[$key])) {
            $this->poller->unwatchRead($key);
            $this->watched--;
        }

        return true;
    }

    /** @param FiberSuspension<mixed> $suspension */
    public function removeWriter(int $key, $suspension): bool
    {
        if (($this->writeWaiters[$key] ?? null) !== $suspension) {
            return false;
        }
        unset($this->writeWaiters[$key]);
        $this->waiting--;
        if (!isset($this->writeWatches[$key])) {
            $this->poller->unwatchWrite($key);
            $this->watched--;
        }

        return true;
    }

    public function addWatch(Watch $watch): void
    {
        \assert(\is_resource($watch->stream));
        $key = $watch->key;
        if ($watch->type === CallbackType::Readable) {
            if (!isset($this->readWatches[$key]) && !isset($this->readWaiters[$key])) {
                $this->poller->watchRead($key, $watch->stream);
                $this->watched++;
            }
            $this->readWatches[$key][] = $watch;
        } else {
            if (!isset($this->writeWatches[$key]) && !isset($this->writeWaiters[$key])) {
                $this->poller->watchWrite($key, $watch->stream);
                $this->watched++;
            }
            $this->writeWatches[$key][] = $watch;
        }
    }

    public function removeWatch(Watch $watch): void
    {
        $key = $watch->key;
        if ($watch->type === CallbackType::Readable) {
            if (self::withdraw($this->readWatches, $key, $watch) && !isset($this->readWaiters[$key])) {
                $this->poller->unwatchRead($key);
                $this->watched--;
            }
        } else {
            if (self::withdraw($this->writeWatches, $key, $watch) && !isset($this->writeWaiters[$key])) {
                $this->poller->unwatchWrite($key);
                $this->watched--;
            }
        }
    }

    /**
     * Waits for the watched streams (at most $timeout seconds; null: until one is ready), then
     * resumes their waiters and queues their callbacks. Returns how many streams were ready.
     */
    public function poll(?float $timeout): int
    {
        $readable = $writable = $failed = [];
        $ready = $this->poller->wait($timeout, $readable, $writable, $failed);
        foreach ($readable as $key => $_) {
            $waiter = $this->readWaiters[$key] ?? null;
            if ($waiter !== null) {
                unset($this->readWaiters[$key]);
                $this->waiting--;
                if (!isset($this->readWatches[$key])) {
                    $this->poller->unwatchRead($key);
                    $this->watched--;
                }
                if ($waiter === $this->inlineWaiter) {
                    $this->inlineReady = true;
                } else {
                    $waiter->resume();
                }
            }
            foreach ($this->readWatches[$key] ?? [] as $watch) {
                $watch->invokable = true;
                $this->scheduler->callbacks[] = $watch;
            }
        }
        foreach ($writable as $key => $_) {
            $waiter = $this->writeWaiters[$key] ?? null;
            if ($waiter !== null) {
                unset($this->writeWaiters[$key]);
                $this->waiting--;
                if (!isset($this->writeWatches[$key])) {
                    $this->poller->unwatchWrite($key);
                    $this->watched--;
                }
                if ($waiter === $this->inlineWaiter) {
                    $this->inlineReady = true;
                } else {
                    $waiter->resume();
                }
            }
            foreach ($this->writeWatches[$key] ?? [] as $watch) {
                $watch->invokable = true;
                $this->scheduler->callbacks[] = $watch;
            }
        }
        foreach ($failed as $key => $error) {
            $this->fail($key, $error);
        }

        return $ready;
    }

    /**
     * Takes $watch out of $watches[$key]; true when that was the key's last one.
     *
     * @param array<int, list<Watch>> $watches
     */
    private static function withdraw(array &$watches, int $key, Watch $watch): bool
    {
        $list = $watches[$key] ?? [];
        $index = \array_search($watch, $list, true);
        if ($index !== false) {
            \array_splice($list, $index, 1);
        }
        if ($list === []) {
            unset($watches[$key]);

            return true;
        }
        $watches[$key] = $list;

        return false;
    }

    /** A stream the poller gave up on (it left the poll): its waiters and callbacks get $error. */
    private function fail(int $key, \Throwable $error): void
    {
        $readWaiter = $this->readWaiters[$key] ?? null;
        $writeWaiter = $this->writeWaiters[$key] ?? null;
        unset($this->readWaiters[$key], $this->writeWaiters[$key]);
        // A waiter without callbacks beside it was its direction's whole interest.
        if ($readWaiter !== null && !isset($this->readWatches[$key])) {
            $this->watched--;
        }
        if ($writeWaiter !== null && !isset($this->writeWatches[$key])) {
            $this->watched--;
        }
        foreach ([$readWaiter, $writeWaiter] as $waiter) {
            if ($waiter === null) {
                continue;
            }
            $this->waiting--;
            if ($waiter === $this->inlineWaiter) {
                $this->inlineError = $error; // it has not suspended: nothing to throw into yet
            } else {
                $waiter->throw($error);
            }
        }
        foreach ([...$this->readWatches[$key] ?? [], ...$this->writeWatches[$key] ?? []] as $watch) {
            ($this->failWatch)($watch, $error);
        }
    }
}
