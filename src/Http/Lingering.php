<?php

declare(strict_types=1);

namespace Bobbin\Http;

use Bobbin\Async\StreamWatcher;

/**
 * The end of a connection after its last response, or after a request it refuses: closed
 * without destroying that response. A half-close, then what the client still sends is read and
 * dropped for a moment, because closing with unread bytes makes the kernel send a reset that
 * can discard the response before the client reads it.
 *
 * @internal used by Connection
 */
final class Lingering
{
    private const SECONDS = 1.0;
    private const MAX_BYTES = 1048576;

    private function __construct()
    {
    }

    /** Runs in the connection's fiber; the sweeper closes the connection at the deadline set here. */
    public static function closeAfterLastResponse(Connection $connection, StreamWatcher $watcher): void
    {
        if ($connection->isClosed()) {
            return;
        }
        $socket = $connection->socket;
        @\stream_socket_shutdown($socket, \STREAM_SHUT_WR);
        $connection->phase = ConnectionPhase::Closing;
        $connection->deadline = \microtime(true) + self::SECONDS;
        $discarded = 0;
        while (!$connection->isClosed() && $discarded < self::MAX_BYTES) {
            $watcher->awaitReadable();
            $data = @\fread($socket, Connection::READ_BYTES);
            if ($data === false || ($data === '' && \feof($socket))) {
                break;
            }
            $discarded += \strlen($data);
        }
        $connection->close();
    }

    /** Answers a request the server refuses with $status (carrying its id, when it has one) and closes. */
    public static function reject(Connection $connection, StreamWatcher $watcher, ServerContext $context, string $remote, int $status, string $reason, string $requestId): void
    {
        $context->metrics->rejected($status);
        if ($context->accessLog !== null) {
            $context->logger->info($requestId === '' ? '{remote} rejected request: {status} {reason}' : '{remote} rejected request {request_id}: {status} {reason}', [
                'remote' => $remote, 'request_id' => $requestId, 'status' => $status, 'reason' => $reason,
            ]);
        }
        if ($connection->writeAll($context->framer->errorResponse($status, requestId: $requestId))) {
            self::closeAfterLastResponse($connection, $watcher);
        }
    }
}
