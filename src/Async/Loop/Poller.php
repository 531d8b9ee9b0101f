<?php

declare(strict_types=1);

namespace Bobbin\Async\Loop;

/**
 * The part of BobbinDriver that asks the kernel which streams are ready: stream_select()
 * (SelectPoller) or epoll (EpollPoller). It keeps the set of streams to watch for reading and
 * for writing, as StreamInterest tells it, and waits on that set.
 *
 * Streams are keyed by resource id ((int) $stream). watch*() is called when a stream's interest
 * in a direction starts, unwatch*() when it ends; unwatching a key that is not watched (say one
 * the poller already gave up on) does nothing.
 *
 * @internal
 */
interface Poller
{
    /**
     * @param resource $stream
     * @throws \Throwable when the stream can never be polled (closed, or past what the poller can
     *     watch); nothing is registered then
     */
    public function watchRead(int $key, mixed $stream): void;

    /**
     * @param resource $stream
     * @throws \Throwable as watchRead()
     */
    public function watchWrite(int $key, mixed $stream): void;

    public function unwatchRead(int $key): void;

    public function unwatchWrite(int $key): void;

    /**
     * Waits until a watched stream is ready, a signal arrives or $timeout seconds pass (null: no
     * limit). Fills $readable and $writable with the keys of the ready streams, and $failed with
     * streams that left the poll for good (their waiters and callbacks get the error). Returns
     * how many streams were ready.
     *
     * @param array<int, mixed> $readable
     * @param array<int, mixed> $writable
     * @param array<int, \Throwable> $failed
     */
    public function wait(?float $timeout, array &$readable, array &$writable, array &$failed): int;

    /**
     * Whether $stream has something to read (data, an end of stream, an error) right now: a
     * zero-timeout check of that one stream, whether it is watched or not.
     *
     * @param resource $stream
     */
    public function isReadableNow(mixed $stream): bool;

    /**
     * How many waits this poller has made: taken when a connection goes idle, it is what
     * stayedQuietSince() is asked with at the connection's next checkout.
     */
    public function waits(): int;

    /**
     * Whether stream $key has had nothing to read since wait number $since: true when the poller
     * watched it for reading, without a break, through the waits made after that one, and they
     * saw every ready stream and found nothing on it. That needs a poller that keeps watching a
     * stream after its last waiter left (epoll's lazy disarming); false means "not known", and
     * the caller asks the socket itself. The answer is as of the last wait: what arrived since
     * is not seen.
     */
    public function stayedQuietSince(int $key, int $since): bool;

    /** The highest descriptor number plus one this poller can watch, or null when only RLIMIT_NOFILE bounds it. */
    public function descriptorCeiling(): ?int;
}
