<?php

declare(strict_types=1);

namespace Bobbin\Nats\Internal;

use Bobbin\Async\Cancellation;
use Bobbin\Async\CancelledException;
use Bobbin\Async\CompositeCancellation;
use Bobbin\Async\DeferredFuture;
use Bobbin\Async\TimeoutCancellation;
use Bobbin\Async\TimeoutException;
use Bobbin\Nats\Message;

/**
 * Messages delivered and not read yet, for one reader: the connection's reader pushes (never
 * waits: a full buffer drops the message and counts it, as a slow consumer must), the owner
 * takes them one by one and waits when there are none.
 *
 * @internal
 */
final class MessageBuffer
{
    /** @var array<int, Message> */
    private array $messages = [];
    private int $head = 0;
    private int $tail = 0;
    private int $bytes = 0;
    public int $dropped = 0;
    /** Whether the last push was dropped: a slow-consumer episode is reported once, not per message. */
    public bool $overflowing = false;
    /** Whether the last push was the first drop after messages were taken again. */
    public bool $startedDropping = false;
    /** @var DeferredFuture<Message|null>|null */
    private ?DeferredFuture $waiter = null;
    private ?\Throwable $ended = null;
    private ?\Throwable $interruption = null;

    public function __construct(private readonly int $maxMessages, private readonly int $maxBytes)
    {
    }

    /** False when the message was dropped (the buffer is full). */
    public function push(Message $message): bool
    {
        if ($this->ended !== null) {
            return false;
        }
        if ($this->waiter !== null) {
            $waiter = $this->waiter;
            $this->waiter = null;
            $waiter->complete($message);

            return true;
        }
        $size = \strlen($message->payload);
        if ($this->tail - $this->head >= $this->maxMessages || $this->bytes + $size > $this->maxBytes) {
            $this->dropped++;
            $this->startedDropping = !$this->overflowing;
            $this->overflowing = true;

            return false;
        }
        $this->overflowing = false;
        $this->messages[$this->tail++] = $message;
        $this->bytes += $size;

        return true;
    }

    /**
     * The oldest message, waiting for one up to $timeout seconds (null: no limit).
     *
     * @throws TimeoutException|CancelledException|\Throwable what end() was given, once the buffer is empty
     */
    public function pop(?float $timeout = null, ?Cancellation $cancellation = null): Message
    {
        if ($this->head < $this->tail) {
            return $this->shift();
        }
        if ($this->ended !== null) {
            throw $this->ended;
        }
        if ($this->waiter !== null) {
            throw new \LogicException('Another fiber already waits for the next message of this subscription');
        }
        /** @var DeferredFuture<Message|null> $waiter */
        $waiter = new DeferredFuture();
        $this->waiter = $waiter;
        $limit = $timeout === null ? null : new TimeoutCancellation($timeout, 'No message came within the timeout');
        try {
            $message = $waiter->future()->await(match (true) {
                $limit === null => $cancellation,
                $cancellation === null => $limit,
                default => new CompositeCancellation($cancellation, $limit),
            });
        } catch (CancelledException $cancelled) {
            // A message handed over in the same tick the wait ended stays first in line.
            $handed = $waiter->isComplete() ? $waiter->future()->await() : null;
            if ($handed !== null) {
                $this->unshift($handed);
            }
            throw $cancelled;
        } finally {
            $limit?->dispose();
            if ($this->waiter === $waiter) {
                $this->waiter = null;
            }
        }
        if ($message === null) {
            $interruption = $this->interruption;
            $this->interruption = null;
            throw $interruption ?? $this->ended ?? new \LogicException('A waiter was woken without a message');
        }

        return $message;
    }

    /** The oldest message if one is there, without waiting. */
    public function tryPop(): ?Message
    {
        return $this->head < $this->tail ? $this->shift() : null;
    }

    /** No more messages: the waiter, and every pop() after the buffered ones, get $reason. */
    public function end(\Throwable $reason): void
    {
        if ($this->ended !== null) {
            return;
        }
        $this->ended = $reason;
        if ($this->waiter !== null) {
            $waiter = $this->waiter;
            $this->waiter = null;
            $waiter->complete(null);
        }
    }

    /** The fiber waiting now (if any) gets $reason; the buffer stays open for later waits. */
    public function interrupt(\Throwable $reason): void
    {
        if ($this->waiter !== null) {
            $waiter = $this->waiter;
            $this->waiter = null;
            $this->interruption = $reason;
            $waiter->complete(null);
        }
    }

    public function isEnded(): bool
    {
        return $this->ended !== null;
    }

    public function count(): int
    {
        return $this->tail - $this->head;
    }

    public function bytes(): int
    {
        return $this->bytes;
    }

    private function unshift(Message $message): void
    {
        if ($this->head > 0) {
            $this->messages[--$this->head] = $message;
        } else {
            $this->messages = [$message, ...\array_values($this->messages)];
            $this->tail++;
        }
        $this->bytes += \strlen($message->payload);
    }

    private function shift(): Message
    {
        $message = $this->messages[$this->head];
        unset($this->messages[$this->head++]);
        $this->bytes -= \strlen($message->payload);
        if ($this->head === $this->tail) {
            // A fresh array: writing index 0 again into the emptied one would turn it from a packed list into a hash.
            $this->messages = [];
            $this->head = $this->tail = 0;
        }

        return $message;
    }
}
