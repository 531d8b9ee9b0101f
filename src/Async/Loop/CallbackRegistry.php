<?php

declare(strict_types=1);

namespace Bobbin\Async\Loop;

use Revolt\EventLoop\CallbackType;
use Revolt\EventLoop\InvalidCallbackError;
use Revolt\EventLoop\UnsupportedFeatureException;

/**
 * The callbacks of Revolt's Driver API (defer, delay, repeat, readable, writable, signal) and
 * their state: enabled, referenced, due. Defers, timers and signals are kept here; stream
 * callbacks go to StreamInterest, which shares the poll with the fibers waiting on streams.
 *
 * @internal
 */
final class CallbackRegistry
{
    /** Enabled, referenced callbacks: with the waiting fibers, what keeps the loop running. */
    public int $referenced = 0;
    /** @var array<string, Watch> enabled defers, run in the next tick */
    public array $pendingDefers = [];
    /** @var array<int, array<string, Watch>> */
    public array $signalWatches = [];
    public readonly TimerHeap $timers;

    private int $nextId = 0;
    /** @var array<string, Watch> */
    private array $watches = [];
    /** @var list<int> */
    private array $caughtSignals = [];
    private readonly \Closure $signalHandler;

    public function __construct(private readonly StreamInterest $streams, private readonly FiberScheduler $scheduler)
    {
        $this->timers = new TimerHeap();
        $this->signalHandler = function (int $signal): void {
            $this->caughtSignals[] = $signal;
        };
    }

    public function __destruct()
    {
        foreach (\array_keys($this->signalWatches) as $signal) {
            @\pcntl_signal($signal, \SIG_DFL);
        }
    }

    /** @param resource|null $stream */
    public function add(
        CallbackType $type,
        \Closure $closure,
        mixed $stream = null,
        int $signal = 0,
        float $interval = 0.0,
    ): string {
        $watch = new Watch('w' . ++$this->nextId, $type, $closure, $stream, $stream === null ? -1 : (int) $stream, $signal, $interval);
        $this->activate($watch); // first: a signal handler that cannot be installed throws
        $this->watches[$watch->id] = $watch;
        $this->referenced++;

        return $watch->id;
    }

    public function enable(string $callbackId): string
    {
        $watch = $this->watches[$callbackId] ?? throw InvalidCallbackError::invalidIdentifier($callbackId);
        if ($watch->enabled) {
            return $callbackId;
        }
        $this->activate($watch);
        $watch->enabled = true;
        if ($watch->referenced) {
            $this->referenced++;
        }

        return $callbackId;
    }

    public function disable(string $callbackId): string
    {
        $watch = $this->watches[$callbackId] ?? null;
        if ($watch === null || !$watch->enabled) {
            return $callbackId;
        }
        $watch->enabled = false;
        $watch->invokable = false;
        if ($watch->referenced) {
            $this->referenced--;
        }
        $this->deactivate($watch);

        return $callbackId;
    }

    public function cancel(string $callbackId): void
    {
        $this->disable($callbackId);
        unset($this->watches[$callbackId]);
    }

    public function reference(string $callbackId): string
    {
        $watch = $this->get($callbackId);
        if (!$watch->referenced) {
            $watch->referenced = true;
            if ($watch->enabled) {
                $this->referenced++;
            }
        }

        return $callbackId;
    }

    public function unreference(string $callbackId): string
    {
        $watch = $this->watches[$callbackId] ?? null;
        if ($watch !== null && $watch->referenced) {
            $watch->referenced = false;
            if ($watch->enabled) {
                $this->referenced--;
            }
        }

        return $callbackId;
    }

    public function get(string $callbackId): Watch
    {
        return $this->watches[$callbackId] ?? throw InvalidCallbackError::invalidIdentifier($callbackId);
    }

    /** @return list<string> */
    public function identifiers(): array
    {
        return \array_map('strval', \array_keys($this->watches));
    }

    /** @return array<string, array{type: CallbackType, enabled: bool, referenced: bool}> */
    public function describe(): array
    {
        $info = [];
        foreach ($this->watches as $id => $watch) {
            $info[(string) $id] = ['type' => $watch->type, 'enabled' => $watch->enabled, 'referenced' => $watch->referenced];
        }

        return $info;
    }

    /** Queues the enabled defers: they run in this tick; defers they create, in the next. */
    public function queueDefers(): void
    {
        foreach ($this->pendingDefers as $watch) {
            $watch->invokable = true;
            $this->scheduler->callbacks[] = $watch;
        }
        $this->pendingDefers = [];
    }

    /** Queues the callbacks of the signals PHP caught since the last call; true if there were any. */
    public function queueSignals(): bool
    {
        \pcntl_signal_dispatch();
        if ($this->caughtSignals === []) {
            return false;
        }
        // Taken before the loop: with pcntl_async_signals() on (BlockProbe), the handler may
        // append to the list at any call in between.
        $caught = $this->caughtSignals;
        $this->caughtSignals = [];
        foreach ($caught as $signal) {
            foreach ($this->signalWatches[$signal] ?? [] as $watch) {
                $watch->invokable = true;
                $this->scheduler->callbacks[] = $watch;
            }
        }

        return true;
    }

    /** Queues the timers due at $now, earliest first. */
    public function queueDueTimers(float $now): void
    {
        while (($watch = $this->timers->extract($now)) !== null) {
            $watch->invokable = true;
            $this->scheduler->callbacks[] = $watch;
        }
    }

    /**
     * Runs $watch's callback if it is still due: not disabled or cancelled since its event. The
     * class is the @param's, not declared: every invoked callback passes here (docs/ASYNC.md, Rules).
     *
     * @param Watch $watch
     */
    public function invoke($watch): void
    {
        if (!$watch->invokable || !isset($this->watches[$watch->id])) {
            return;
        }
        $type = $watch->type;
        if ($type === CallbackType::Delay || $type === CallbackType::Defer) {
            $this->cancel($watch->id);
        } elseif ($type === CallbackType::Repeat) {
            $watch->invokable = false;
            $watch->expiration = \hrtime(true) / 1e9 + $watch->interval;
            $this->timers->insert($watch);
        } elseif ($type === CallbackType::Signal) {
            $watch->invokable = false;
        }
        $result = match ($type) {
            CallbackType::Readable, CallbackType::Writable => ($watch->closure)($watch->id, $watch->stream),
            CallbackType::Signal => ($watch->closure)($watch->id, $watch->signal),
            default => ($watch->closure)($watch->id),
        };
        if ($result !== null) {
            throw InvalidCallbackError::nonNullReturn($watch->id, $watch->closure);
        }
    }

    private function activate(Watch $watch): void
    {
        switch ($watch->type) {
            case CallbackType::Readable:
            case CallbackType::Writable:
                $this->streams->addWatch($watch);
                break;
            case CallbackType::Defer:
                $this->pendingDefers[$watch->id] = $watch;
                break;
            case CallbackType::Delay:
            case CallbackType::Repeat:
                $watch->expiration = \hrtime(true) / 1e9 + $watch->interval;
                $this->timers->insert($watch);
                break;
            case CallbackType::Signal:
                if (!isset($this->signalWatches[$watch->signal])) {
                    if (!@\pcntl_signal($watch->signal, $this->signalHandler)) {
                        throw new UnsupportedFeatureException(\sprintf('Failed to register a handler for signal %d', $watch->signal));
                    }
                }
                $this->signalWatches[$watch->signal][$watch->id] = $watch;
                break;
        }
    }

    private function deactivate(Watch $watch): void
    {
        switch ($watch->type) {
            case CallbackType::Readable:
            case CallbackType::Writable:
                $this->streams->removeWatch($watch);
                break;
            case CallbackType::Defer:
                unset($this->pendingDefers[$watch->id]);
                break;
            case CallbackType::Delay:
            case CallbackType::Repeat:
                $this->timers->remove($watch);
                break;
            case CallbackType::Signal:
                unset($this->signalWatches[$watch->signal][$watch->id]);
                if ($this->signalWatches[$watch->signal] === []) {
                    unset($this->signalWatches[$watch->signal]);
                    @\pcntl_signal($watch->signal, \SIG_DFL);
                }
                break;
        }
    }
}
