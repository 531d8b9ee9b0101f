<?php

declare(strict_types=1);

namespace Bobbin\Async;

use Closure;

/**
 * One attempt at a time (a connect, a reconnect), shared by every caller that arrives while it
 * runs.
 *
 * The attempt runs in a task of its own and takes no caller's cancellation: a caller that stops
 * waiting (its deadline passed, its client left) leaves alone, and the others go on waiting for
 * the same attempt, each within its own cancellation. Had the attempt taken the first caller's
 * cancellation, that caller's short deadline would fail every caller waiting with it. So the
 * attempt must bound itself (a connect timeout). Its result or failure reaches every caller
 * waiting at the time; a caller arriving after it ended starts a new one.
 *
 * The attempt is passed to each await() rather than held, so that the object owning this one
 * (a client whose destructor closes its sockets) is referenced only while an attempt runs.
 *
 * @template T
 */
final class SharedAttempt
{
    /** @var Future<T>|null */
    private ?Future $running = null;

    /**
     * Starts $attempt unless one runs already, and waits for the running one.
     *
     * @param Closure(): T $attempt
     * @return T
     */
    public function await(Closure $attempt, ?Cancellation $cancellation = null): mixed
    {
        $cancellation?->throwIfRequested();
        if ($this->running === null) {
            /** @var Future<T> $running */
            $running = Async::run(function () use ($attempt): mixed {
                try {
                    return $attempt();
                } finally {
                    $this->running = null;
                }
            });
            // Whoever awaits it hears of its failure; a failure nobody awaits any more is expected.
            $this->running = $running->ignore();
        }

        return $this->running->await($cancellation);
    }

    public function isRunning(): bool
    {
        return $this->running !== null;
    }
}
