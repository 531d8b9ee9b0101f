<?php

declare(strict_types=1);

namespace Bobbin\Async;

/**
 * What an idle connection's socket has to say, asked without reading it: one
 * recv(MSG_PEEK | MSG_DONTWAIT). A pool asks this of every connection it hands out, so it is
 * the cheapest check there is (~0.4 µs; a poll through the loop driver costs ~1.8 µs on epoll,
 * where PHP must first be asked for the descriptor's number). A stream PHP cannot expose as a
 * socket falls back to Async::isReadableNow().
 */
final class IdleSocketPeek
{
    private ?\Socket $socket = null;

    private bool $imported = false;

    /** @param resource $stream */
    public function __construct(private readonly mixed $stream)
    {
    }

    /**
     * The first byte waiting on the socket: null when nothing arrived, '' at the end of the
     * stream or on a socket error (the connection is gone either way), '?' when something
     * arrived on a stream that cannot be peeked at.
     */
    public function firstByte(): ?string
    {
        if (!$this->imported) {
            $this->imported = true;
            $this->socket = @\socket_import_stream($this->stream) ?: null;
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
