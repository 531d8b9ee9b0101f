<?php

declare(strict_types=1);

namespace Bobbin\Redis\Internal;

use Bobbin\Async\Cancellation;
use Bobbin\Async\DeferredFuture;
use Bobbin\Redis\Exception\RedisException;
use Bobbin\Redis\SubscriptionEvent;

/**
 * What a Subscriber has received and the application has not taken yet, in order: bytes as read
 * (the backlog, in chunks) and the events parsed from them (in batches). The reader adds bytes;
 * they are parsed at once while the application keeps up (under EAGER_BELOW parsed bytes
 * waiting), else only when the application reaches them — so a burst costs a read and a copy
 * per chunk until then, and waits here rather than on the server. takeBatch() hands the
 * application's side the next batch, parsing the next chunk or waiting when there is none.
 *
 * Bounded: past $maxBytes (bytes on the wire, plus OVERHEAD per parsed message) isFull() tells
 * the reader to stop reading until the application has taken enough (awaitRoom()).
 *
 * @internal
 */
final class SubscriberInbox
{
    /** What a parsed message holds beyond its bytes on the wire (object, strings' headers, slot; ~230 B measured on PHP 8.2 for 16 B). */
    public const OVERHEAD = 200;
    /** Parsed bytes waiting under which new bytes are parsed as they arrive. */
    private const EAGER_BELOW = 1024 * 1024;

    /** @var \SplQueue<array{non-empty-list<SubscriptionEvent>, int}> parsed events in batches, and their bytes */
    private readonly \SplQueue $batches;
    private int $parsedBytes = 0;
    /** @var \SplQueue<string> */
    private readonly \SplQueue $backlog;
    private int $backlogBytes = 0;
    private ?RespParser $parser = null;
    /** @var DeferredFuture<null>|null the consumers waiting for an event */
    private ?DeferredFuture $arrival = null;
    /** @var DeferredFuture<null>|null the reader waiting for room */
    private ?DeferredFuture $room = null;
    private bool $closed = false;

    /**
     * @param \Closure(mixed): void $handle what to do with a reply that is not a published message (throws to end the connection)
     * @param \Closure(\Throwable): void $failed a reply that failed to parse or to be handled while the application took events
     */
    public function __construct(public readonly int $maxBytes, private readonly \Closure $handle, private readonly \Closure $failed)
    {
        if ($maxBytes < 1) {
            throw new \ValueError('A subscriber needs room for at least one byte');
        }
        $this->batches = new \SplQueue();
        $this->backlog = new \SplQueue();
    }

    /** A new connection's parser: the backlog of the previous one is parsed by then (drain()). */
    public function useParser(RespParser $parser): void
    {
        $this->parser = $parser;
    }

    /**
     * Bytes from the connection, parsed now when $eager (someone waits for a confirmation) or
     * when the application keeps up.
     */
    public function receive(string $bytes, bool $eager): void
    {
        $this->backlog->enqueue($bytes);
        $this->backlogBytes += \strlen($bytes);
        while (!$this->backlog->isEmpty() && ($eager || $this->parsedBytes < self::EAGER_BELOW)) {
            $this->parseChunk();
        }
    }

    /** Parses the whole backlog, before the connection's parser is replaced; stops at a failure. */
    public function drain(): void
    {
        try {
            while (!$this->backlog->isEmpty()) {
                $this->parseChunk();
            }
        } catch (\Throwable) {
            $this->dropBacklog();
        }
    }

    /** @param list<SubscriptionEvent> $events */
    public function add(array $events, int $bytes): void
    {
        if ($events === []) {
            return;
        }
        $this->batches->enqueue([$events, $bytes]);
        $this->parsedBytes += $bytes;
        if ($this->arrival !== null) {
            $arrival = $this->arrival;
            $this->arrival = null;
            $arrival->complete(null);
        }
    }

    /**
     * The next batch of events (never empty): parsed already, or the next chunk of the backlog
     * parsed now, or the next to arrive, waiting as long as it takes. The batch is the
     * caller's from then on (it no longer counts against the bound).
     *
     * @return non-empty-list<SubscriptionEvent>
     * @throws RedisException once closed and empty|\Bobbin\Async\CancelledException
     */
    public function takeBatch(?Cancellation $cancellation): array
    {
        while (true) {
            if ($this->batches->isEmpty() && !$this->backlog->isEmpty()) {
                try {
                    $this->parseChunk();
                } catch (\Throwable $e) {
                    $this->dropBacklog();
                    ($this->failed)($e);
                }
            }
            if (!$this->batches->isEmpty()) {
                [$batch, $bytes] = $this->batches->dequeue();
                $this->parsedBytes -= $bytes;
                if ($this->room !== null && !$this->isFull()) {
                    $room = $this->room;
                    $this->room = null;
                    $room->complete(null);
                }

                return $batch;
            }
            if ($this->closed) {
                throw new RedisException('The subscriber is closed');
            }
            $this->arrival ??= new DeferredFuture();
            $this->arrival->future()->await($cancellation);
        }
    }

    /** Whether what is held reaches the bound: the reader stops reading. */
    public function isFull(): bool
    {
        return $this->parsedBytes + $this->backlogBytes >= $this->maxBytes;
    }

    /** For the reader: waits until the application has taken enough to be under the bound again. */
    public function awaitRoom(): void
    {
        while ($this->isFull() && !$this->closed) {
            $this->room ??= new DeferredFuture();
            $this->room->future()->await();
        }
    }

    /** What is held can still be taken; then take() throws. Waiting consumers are told at once. */
    public function close(): void
    {
        if ($this->closed) {
            return;
        }
        $this->closed = true;
        if ($this->arrival !== null) {
            $this->arrival->future()->ignore(); // a consumer that stopped waiting (cancelled) left it
            $this->arrival->fail(new RedisException('The subscriber is closed'));
            $this->arrival = null;
        }
        $this->room?->complete(null);
        $this->room = null;
    }

    /** One chunk of the backlog: published messages through the parser's fast path, anything else through $handle. */
    private function parseChunk(): void
    {
        \assert($this->parser !== null);
        $chunk = $this->backlog->dequeue();
        $this->backlogBytes -= \strlen($chunk);
        $parser = $this->parser;
        $parser->append($chunk);
        while (true) {
            $batch = [];
            $taken = $parser->takeMessages($batch);
            if ($batch !== []) {
                $this->add($batch, $taken + \count($batch) * self::OVERHEAD);
            }
            if (!$parser->next()) {
                return;
            }
            ($this->handle)($parser->reply);
        }
    }

    private function dropBacklog(): void
    {
        while (!$this->backlog->isEmpty()) {
            $this->backlog->dequeue();
        }
        $this->backlogBytes = 0;
    }
}
