<?php

declare(strict_types=1);

namespace Bobbin\Redis\Internal;

use Bobbin\Async\Cancellation;
use Bobbin\Async\DeferredFuture;
use Bobbin\Redis\Exception\RedisException;
use Bobbin\Redis\SubscriptionEvent;

/**
 * The events between a Subscriber's reader and receive(), in order. The reader adds what one
 * read brought as a batch; receive() takes from the batch in hand without a fiber switch and
 * waits only when everything is taken. Bounded by an estimate of the memory the events hold
 * (their bytes on the wire plus OVERHEAD each): past $maxBytes the reader stops reading until
 * the application catches up, and Redis buffers the rest up to its own limit.
 *
 * @internal
 */
final class SubscriberQueue
{
    /** What a queued message holds beyond its bytes on the wire (object, strings' headers, slot; ~230 B measured on PHP 8.2 for 16 B). */
    public const OVERHEAD = 200;

    /** @var array<int, SubscriptionEvent> the batch being taken */
    private array $taking = [];
    private int $next = 0;
    private int $takingBytes = 0;
    /** @var \SplQueue<array{list<SubscriptionEvent>, int}> batches after it, and their bytes */
    private readonly \SplQueue $batches;
    private int $queuedBytes = 0;
    /** @var DeferredFuture<null>|null the consumers waiting for an event */
    private ?DeferredFuture $arrival = null;
    /** @var DeferredFuture<null>|null the reader waiting for room */
    private ?DeferredFuture $room = null;
    private bool $closed = false;

    public function __construct(public readonly int $maxBytes)
    {
        if ($maxBytes < 1) {
            throw new \ValueError('A subscriber queue needs room for at least one byte');
        }
        $this->batches = new \SplQueue();
    }

    /** @param list<SubscriptionEvent> $events */
    public function add(array $events, int $bytes): void
    {
        if ($events === [] || $this->closed) {
            return;
        }
        $this->batches->enqueue([$events, $bytes]);
        $this->queuedBytes += $bytes;
        if ($this->arrival !== null) {
            $arrival = $this->arrival;
            $this->arrival = null;
            $arrival->complete(null);
        }
    }

    /**
     * The next event, waiting for one as long as it takes.
     *
     * @throws RedisException once closed and empty|\Bobbin\Async\CancelledException
     */
    public function take(?Cancellation $cancellation): SubscriptionEvent
    {
        if (isset($this->taking[$this->next])) {
            return $this->taking[$this->next++];
        }
        while (true) {
            if (!$this->batches->isEmpty()) {
                $this->queuedBytes -= $this->takingBytes;
                [$this->taking, $this->takingBytes] = $this->batches->dequeue();
                $this->next = 1;
                if ($this->room !== null && $this->queuedBytes < $this->maxBytes) {
                    $room = $this->room;
                    $this->room = null;
                    $room->complete(null);
                }

                return $this->taking[0];
            }
            if ($this->takingBytes > 0) {
                $this->queuedBytes -= $this->takingBytes;
                $this->takingBytes = 0;
                $this->taking = [];
            }
            if ($this->closed) {
                throw new RedisException('The subscriber is closed');
            }
            $this->arrival ??= new DeferredFuture();
            $this->arrival->future()->await($cancellation);
        }
    }

    /** Whether the events held reach the bound: the reader stops reading. */
    public function isFull(): bool
    {
        return $this->queuedBytes >= $this->maxBytes;
    }

    /** The bytes held now (wire bytes plus the per-message estimate). */
    public function bytes(): int
    {
        return $this->queuedBytes;
    }

    /** For the reader: waits until the application has taken enough to be under the bound again. */
    public function awaitRoom(): void
    {
        while ($this->isFull() && !$this->closed) {
            $this->room ??= new DeferredFuture();
            $this->room->future()->await();
        }
    }

    /** What is queued can still be taken; then take() throws. Waiting consumers are told at once. */
    public function close(): void
    {
        if ($this->closed) {
            return;
        }
        $this->closed = true;
        $this->arrival?->future()->ignore(); // a consumer that stopped waiting (cancelled) left it
        $this->arrival?->fail(new RedisException('The subscriber is closed'));
        $this->arrival = null;
        $this->room?->complete(null);
        $this->room = null;
    }
}
