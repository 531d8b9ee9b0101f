<?php

declare(strict_types=1);

namespace Bobbin\Postgres;

use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Async\Channel;
use Bobbin\Async\ChannelClosedException;
use Bobbin\Async\OwnsResources;
use Bobbin\Async\StreamWatcher;
use Bobbin\Postgres\Exception\ConnectionLostException;
use PgSql\Connection as PgConnection;

/**
 * Notifications of one LISTEN channel, delivered to fibers through receive(). A background fiber
 * reads the dedicated connection; close() ends it and closes the connection.
 */
final class Listener
{
    use OwnsResources;

    /** @var Channel<Notification> */
    private readonly Channel $notifications;

    /** @internal created by Connection::listen() */
    public function __construct(
        private readonly Connection $connection,
        PgConnection $handle,
        StreamWatcher $watcher,
        private readonly string $channel,
        int $capacity,
    ) {
        $notifications = $this->notifications = new Channel($capacity);
        Async::run(static function () use ($handle, $watcher, $notifications): void {
            try {
                while (true) {
                    $watcher->awaitReadable();
                    if (!@\pg_consume_input($handle)) {
                        return;
                    }
                    while (($message = \pg_get_notify($handle, \PGSQL_ASSOC)) !== false) {
                        $notifications->send(new Notification(
                            (string) $message['message'],
                            (string) ($message['payload'] ?? ''),
                            (int) $message['pid'],
                        ));
                    }
                    if (\pg_connection_status($handle) !== \PGSQL_CONNECTION_OK) {
                        return;
                    }
                }
            } catch (\Throwable) {
                // The watcher was closed (close()) or the channel was: listening is over.
            } finally {
                $notifications->close();
            }
        });
    }

    public function channel(): string
    {
        return $this->channel;
    }

    /**
     * The next notification, waiting for one if none is buffered.
     *
     * @throws ConnectionLostException once the listener is closed or its connection broke
     */
    public function receive(?Cancellation $cancellation = null): Notification
    {
        try {
            return $this->notifications->receive($cancellation);
        } catch (ChannelClosedException $e) {
            throw new ConnectionLostException(\sprintf('Listening on "%s" has ended (closed or connection lost)', $this->channel), '', '', '', '', $e);
        }
    }

    public function close(): void
    {
        $this->connection->close();
        $this->notifications->close();
    }
}
