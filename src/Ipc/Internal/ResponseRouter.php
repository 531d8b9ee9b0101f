<?php

declare(strict_types=1);

namespace Bobbin\Ipc\Internal;

use Bobbin\Async\Cancellation;
use Bobbin\Async\CancelledException;
use Revolt\EventLoop;
use Revolt\EventLoop\Suspension;

/**
 * Matches responses to the fibers waiting for them, without a reader fiber of its own.
 *
 * Keys are whatever the connection matches by: a socket connection's request numbers (1, 2, 3…
 * in wire order, since the daemon answers in order) or a ring record's id. A key nobody waits for
 * any more (its fiber was cancelled) is delivered and dropped like any other, which keeps the
 * sequence intact.
 *
 * The first waiter becomes the leader: it reads the connection (its ResponseSource) and
 * hands every response it finds to its owner. When its own answer arrives it passes the lead to
 * another waiter. A dedicated reader fiber would cost a fiber switch per response and a fiber
 * creation per idle-to-busy transition; a single blocking caller pays neither here.
 *
 * @internal
 */
final class ResponseRouter
{
    /** @var array<int, Suspension<?string>> */
    private array $waiting = [];
    private bool $leading = false;
    private int $leaderId = 0;
    private ?string $leaderResult = null;

    /** Waits for the answer to $id, reading $source while this fiber leads. */
    public function await(int $id, ?Cancellation $cancellation, ResponseSource $source): string
    {
        if ($this->leading) {
            /** @var Suspension<?string> $suspension */
            $suspension = EventLoop::getSuspension();
            $this->waiting[$id] = $suspension;
            if ($cancellation === null) {
                // The crowd's hot path: nothing to subscribe, nothing to clean up.
                $result = $suspension->suspend();
            } else {
                $result = $this->suspendCancellably($id, $suspension, $cancellation);
            }
            if ($result !== null) {
                return $result;
            }
            // Promoted: handOff() already made us the leader for $id.
        } else {
            $this->leading = true;
            $this->leaderId = $id;
        }

        try {
            while ($this->leaderResult === null) {
                $source->pump($cancellation);
            }
            $result = $this->leaderResult;

            return $result;
        } finally {
            $this->leaderResult = null;
            $this->handOff();
        }
    }

    /** @param Suspension<?string> $suspension */
    private function suspendCancellably(int $id, Suspension $suspension, Cancellation $cancellation): ?string
    {
        $cancellationId = $cancellation->subscribe(function (CancelledException $e) use ($id): void {
            $suspension = $this->waiting[$id] ?? null;
            if ($suspension !== null) {
                unset($this->waiting[$id]);
                $suspension->throw($e);
            }
        });
        try {
            return $suspension->suspend();
        } finally {
            $cancellation->unsubscribe($cancellationId);
        }
    }

    public function deliver(int $id, string $payload): void
    {
        if ($id === $this->leaderId) {
            $this->leaderResult = $payload;

            return;
        }
        $suspension = $this->waiting[$id] ?? null;
        if ($suspension !== null) {
            unset($this->waiting[$id]);
            $suspension->resume($payload);
        }
        // Otherwise its caller was cancelled: the answer is dropped.
    }

    /** Throws $error into every fiber still waiting (the leader gets it from its pump). */
    public function failAll(\Throwable $error): void
    {
        $waiting = $this->waiting;
        $this->waiting = [];
        foreach ($waiting as $suspension) {
            $suspension->throw($error);
        }
    }

    public function hasWaiters(): bool
    {
        return $this->leading;
    }

    private function handOff(): void
    {
        foreach ($this->waiting as $id => $suspension) {
            unset($this->waiting[$id]);
            $this->leaderId = $id;
            $suspension->resume(null);

            return;
        }
        $this->leading = false;
        $this->leaderId = 0;
    }
}
