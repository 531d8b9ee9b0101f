<?php

declare(strict_types=1);

namespace Bobbin\Async;

use Bobbin\Async\Internal\WaitQueue;

/**
 * A bounded FIFO between fibers. send() suspends while the buffer is full, receive() while it
 * is empty. After close(), buffered values can still be received; then receive() throws
 * ChannelClosedException. Senders still waiting at close() get the exception too, so they know
 * their value was not delivered.
 *
 * @template T
 */
final class Channel
{
    /** @var \SplQueue<T> */
    private readonly \SplQueue $buffer;
    private readonly WaitQueue $receivers;
    private readonly WaitQueue $senders;
    private bool $closed = false;

    public function __construct(private readonly int $capacity)
    {
        if ($capacity < 1) {
            throw new \ValueError('A channel needs a capacity of at least 1');
        }
        $this->buffer = new \SplQueue();
        $this->receivers = new WaitQueue();
        $this->senders = new WaitQueue();
    }

    /**
     * @param T $value
     * @throws ChannelClosedException|CancelledException
     */
    public function send(mixed $value, ?Cancellation $cancellation = null): void
    {
        if ($this->closed) {
            throw new ChannelClosedException('Cannot send on a closed channel');
        }
        if (!$this->receivers->isEmpty()) {
            $this->receivers->wakeFirst($value);

            return;
        }
        if ($this->buffer->count() < $this->capacity) {
            $this->buffer->enqueue($value);

            return;
        }
        $this->senders->wait($cancellation, $value);
    }

    /**
     * @return T
     * @throws ChannelClosedException|CancelledException
     */
    public function receive(?Cancellation $cancellation = null): mixed
    {
        if (!$this->buffer->isEmpty()) {
            $value = $this->buffer->dequeue();
            [$woken, $senderValue] = $this->senders->wakeFirst();
            if ($woken) {
                $this->buffer->enqueue($senderValue);
            }

            return $value;
        }
        if ($this->closed) {
            throw new ChannelClosedException('The channel is closed');
        }

        /** @var T */
        return $this->receivers->wait($cancellation);
    }

    public function close(): void
    {
        if ($this->closed) {
            return;
        }
        $this->closed = true;
        $this->receivers->failAll(new ChannelClosedException('The channel was closed'));
        $this->senders->failAll(new ChannelClosedException('The channel was closed before the value was taken'));
    }

    public function isClosed(): bool
    {
        return $this->closed;
    }

    /** Values buffered now, not counting senders still waiting. */
    public function count(): int
    {
        return $this->buffer->count();
    }

    public function capacity(): int
    {
        return $this->capacity;
    }
}
