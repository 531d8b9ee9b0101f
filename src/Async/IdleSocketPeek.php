<?php

declare(strict_types=1);

namespace Bobbin\Async;

use Bobbin\Async\Loop\BobbinDriver;
use Revolt\EventLoop;

/**
 * What an idle connection's socket has to say, asked without reading it. A pool asks this of
 * every connection it hands out, so it is the cheapest check there is: when the loop has polled
 * the socket since the connection went idle (markIdle()), found nothing, and did so less than a
 * millisecond ago, that is the answer, with no system call (on epoll, which keeps watching a
 * socket after its last wait); otherwise one recv(MSG_PEEK | MSG_DONTWAIT) (~0.4 µs in PHP plus
 * ~1 µs in the kernel; a poll through the loop driver costs ~1.8 µs on epoll, where PHP must
 * first be asked for the descriptor's number). A stream PHP cannot expose as a socket falls
 * back to Async::isReadableNow().
 *
 * The poll's answer is up to TRUST_POLL_FOR old: a server that closed the session in that
 * moment shows as a lost connection on the next statement, as one that closes it a moment
 * after the peek does. A connection released and taken again with no poll between (within one
 * turn of the loop) is always peeked at.
 */
final class IdleSocketPeek
{
    /** Seconds for which a poll that found the socket quiet stands in for a peek. */
    private const TRUST_POLL_FOR = 0.001;

    private ?\Socket $socket = null;

    private bool $imported = false;

    /** The loop that polls the stream, when it can tell a stream's quiet (see markIdle()). */
    private ?BobbinDriver $driver;

    private int $key;

    /** @var int the driver's wait count when the connection went idle (untyped: written per statement) */
    private $idleSince = \PHP_INT_MAX;

    /** @param resource $stream */
    public function __construct(private readonly mixed $stream)
    {
        $driver = EventLoop::getDriver();
        $this->driver = $driver instanceof BobbinDriver ? $driver : null;
        $this->key = (int) $stream;
    }

    /** The connection finished its exchange and sits idle from now: what a later firstByte() asks the loop about. */
    public function markIdle(): void
    {
        if ($this->driver !== null) {
            $this->idleSince = $this->driver->waits();
        }
    }

    /**
     * The first byte waiting on the socket: null when nothing arrived, '' at the end of the
     * stream or on a socket error (the connection is gone either way), '?' when something
     * arrived on a stream that cannot be peeked at.
     */
    public function firstByte(): ?string
    {
        if ($this->driver !== null && $this->driver->stayedQuietSince($this->key, $this->idleSince, self::TRUST_POLL_FOR)) {
            return null;
        }
        if (!$this->imported) {
            $this->imported = true;
            // Without ext-sockets: '?' for whatever arrived, as for a stream that cannot be peeked at.
            $this->socket = \function_exists('socket_import_stream') ? (@\socket_import_stream($this->stream) ?: null) : null;
        }
        if ($this->socket === null) {
            if (!\is_resource($this->stream)) {
                return '';
            }

            return Async::isReadableNow($this->stream) ? '?' : null;
        }
        $received = @\socket_recv($this->socket, $first, 1, \MSG_PEEK | \MSG_DONTWAIT);
        if ($received === false) {
            // Read after a failure only, so the error is this call's: no clearing needed.
            $error = \socket_last_error($this->socket);

            // Nothing to read yet (EAGAIN, which is EWOULDBLOCK on Linux), or a signal came in between.
            return $error === \SOCKET_EAGAIN || $error === \SOCKET_EINTR ? null : '';
        }

        return $received === 0 ? '' : (string) $first;
    }

    /** Whether anything (data, the end of the stream, an error) is waiting. */
    public function hasArrived(): bool
    {
        return $this->firstByte() !== null;
    }
}
