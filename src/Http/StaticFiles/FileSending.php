<?php

declare(strict_types=1);

namespace Bobbin\Http\StaticFiles;

use Bobbin\Async\FileSender;
use Bobbin\Http\Connection;
use Bobbin\Http\FramedResponse;

/**
 * Puts a large static file on a connection with sendfile(2) (FileSender): the head by the
 * connection's own write, then the file's bytes by the kernel, as much as the socket takes each
 * time. When the socket's buffer is full, a small piece goes out through the connection's write,
 * which waits for the client with the write phase's deadline and data rate as for any response;
 * then sendfile() goes on. Bytes sent count as the connection's own writes do.
 *
 * @internal used by ResponseWriter for a FileBody too large for the head's write
 */
final class FileSending
{
    /** What goes through the connection's write when the socket is full: enough to wait on, little to copy. */
    private const WAIT_PIECE_BYTES = 4096;

    /**
     * @param Connection $connection
     * @return bool|null whether the connection is still whole; null when sendfile() cannot be used at all (nothing was written)
     */
    public static function write($connection, FramedResponse $framed, FileBody $body, FileSender $sender, float $writeTimeout): ?bool
    {
        $handle = $body->handle();
        $socket = $connection->socket;
        if ($handle === null || $sender->send($socket, $handle, 0, 0) < 0) {
            return null;
        }
        if (!$connection->writeAll($framed->head)) {
            return false;
        }
        $body->rewind();
        $start = $offset = $body->fileOffset();
        $remaining = $framed->length;
        while ($remaining > 0) {
            $sent = $sender->send($socket, $handle, $offset, $remaining);
            if ($sent > 0) {
                $offset += $sent;
                $remaining -= $sent;
                $connection->sent += $sent;
                $connection->windowBytes += $sent;
                $connection->deadline = \microtime(true) + $writeTimeout;
                continue;
            }
            if ($connection->isClosed()) {
                return false;
            }
            // Full (0) or failing (-1, a file shortened under us): a piece by the ordinary write,
            // which waits for the client or fails.
            $body->seek($offset - $start);
            $piece = $body->read(\min($sent === 0 ? self::WAIT_PIECE_BYTES : 65536, $remaining));
            if ($piece === '') {
                return false; // the file is shorter than its Content-Length said: the connection must close
            }
            if (!$connection->writeAll($piece)) {
                return false;
            }
            $offset += \strlen($piece);
            $remaining -= \strlen($piece);
        }

        return true;
    }
}
