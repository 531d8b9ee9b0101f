<?php

declare(strict_types=1);

namespace Bobbin\Http;

use Bobbin\Async\StreamWatcher;

/**
 * The rest of a write the client's socket did not take at once (Connection::writeAll(), whose
 * usual write is whole): waits for the client to read, counting progress towards the data rate
 * and pushing the write timeout back. The connection's fields are public for its writers.
 *
 * @internal
 */
final class SlowClientWrite
{
    /** @param int|false $written what the first fwrite() took of $data */
    public static function finish(Connection $connection, StreamWatcher $watcher, string $data, int|false $written, float $writeTimeout): bool
    {
        $length = \strlen($data);
        while (true) {
            if ($written === false || $connection->isClosed()) {
                return false;
            }
            if ($written > 0) {
                $connection->windowBytes += $written;
                $connection->sent += $written;
                $data = \substr($data, $written);
                if ($data === '') {
                    return true;
                }
                if ($connection->phase === ConnectionPhase::Writing) {
                    $connection->deadline = \microtime(true) + $writeTimeout;
                }
            }
            if ($connection->phase === ConnectionPhase::Writing && $connection->phaseSince === 0.0) {
                // The response's first wait (ResponseWriter left the write phase's clock unset).
                $connection->phaseSince = $connection->windowStart = \microtime(true);
                $connection->windowBytes = $length - \strlen($data);
                $connection->deadline = $connection->phaseSince + $writeTimeout;
            }
            $watcher->awaitWritable();
            $written = @\fwrite($connection->socket, $data);
        }
    }
}
