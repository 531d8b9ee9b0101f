<?php

declare(strict_types=1);

namespace Bobbin\Ipc\Internal;

use Bobbin\Async\Cancellation;
use Bobbin\Async\KeyedWaiters;
use Bobbin\Ipc\Codec\ResponseSink;

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
final class ResponseRouter implements ResponseSink
{
    private readonly KeyedWaiters $waiters;
    private bool $leading = false;
    private int $leaderId = 0;
    private ?string $leaderResult = null;

    public function __construct()
    {
        $this->waiters = new KeyedWaiters();
    }

    /** Waits for the answer to $id, reading $source while this fiber leads. */
    public function await(int $id, ?Cancellation $cancellation, ResponseSource $source): string
    {
        if ($this->leading) {
            /** @var ?string $result */
            $result = $this->waiters->wait($id, $cancellation);
            if ($result !== null) {
                return $result;
            }
            // Promoted: handOff() already made us the leader for $id.
        } else {
            $this->leading = true;
            $this->leaderId = $id;
        }

        try {
            do {
                $source->pump($cancellation);
                $this->waiters->runSettled();
            } while ($this->leaderResult === null);

            return $this->leaderResult;
        } finally {
            $this->leaderResult = null;
            $this->handOff();
        }
    }

    /** Called from the source's pump(): the answer to $id (dropped when its caller was cancelled). */
    public function deliver(int $id, string $payload): void
    {
        if ($id === $this->leaderId) {
            $this->leaderResult = $payload;

            return;
        }
        $this->waiters->settle($id, $payload);
    }

    /** Throws $error into every fiber still waiting (the leader gets it from its pump). */
    public function failAll(\Throwable $error): void
    {
        $this->waiters->failAll($error);
    }

    public function hasWaiters(): bool
    {
        return $this->leading;
    }

    private function handOff(): void
    {
        $next = $this->waiters->oldestKey();
        if ($next === null) {
            $this->leading = false;
            $this->leaderId = 0;

            return;
        }
        $this->leaderId = $next;
        $this->waiters->settle($next, null); // resumed with null: it leads now
    }
}
