<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Internal;

use Bobbin\Async\Cancellation;
use Bobbin\Async\TimeoutException;
use Bobbin\Mysql\Connection;
use Bobbin\Mysql\ConnectionConfig;
use Bobbin\Mysql\Exception\ConnectException;
use Bobbin\Mysql\Exception\ConnectionLostException;
use Bobbin\Mysql\Exception\ConnectTimeoutException;
use Bobbin\Mysql\Exception\ProtocolException;
use Closure;

/**
 * Opens a MySQL/MariaDB session without blocking the loop — transport (TCP or unix socket, TLS),
 * handshake, then what $finish does on the new session — and turns what can go wrong into the
 * errors a caller acts on (ConnectException, ConnectTimeoutException, its own cancellation).
 * Connection::connect()'s rare path, kept out of the class that carries every statement.
 *
 * @internal
 */
final class SessionOpener
{
    private function __construct()
    {
    }

    /**
     * @param Closure(Transport, ServerGreeting, int, int): Connection $finish gets the transport, the
     *        server's greeting, the agreed capabilities and the MariaDB ones
     * @throws ConnectException|ConnectTimeoutException|\Bobbin\Async\CancelledException
     */
    public static function open(ConnectionConfig $config, ?Cancellation $cancellation, Closure $finish): Connection
    {
        $cancellation?->throwIfRequested();
        $deadline = \microtime(true) + $config->connectTimeout;
        try {
            $transport = Transport::open($config, $deadline, $cancellation);
        } catch (TimeoutException $e) {
            throw self::timeout($e, $config, $cancellation);
        }
        try {
            [$greeting, $capabilities, $mariadb] = Handshake::perform($transport, $config, $deadline, $cancellation);

            return $finish($transport, $greeting, $capabilities, $mariadb);
        } catch (TimeoutException $e) {
            $transport->close();
            throw self::timeout($e, $config, $cancellation);
        } catch (ConnectionLostException|ProtocolException $e) {
            $transport->close();
            throw new ConnectException(\sprintf('Cannot connect to MySQL (%s): %s', $config->describe(), $e->getMessage()), 0, '', $e);
        } catch (\Throwable $e) {
            $transport->close();
            throw $e;
        }
    }

    /** KILL QUERY over a session of its own (the one running the statement is busy with it). */
    public static function killQuery(ConnectionConfig $config, int $connectionId): void
    {
        $connection = Connection::connect($config->with(statementCacheSize: 0, queryTimeout: 5.0, connectTimeout: \min(5.0, $config->connectTimeout)));
        try {
            $connection->command('KILL QUERY ' . $connectionId);
        } finally {
            $connection->close();
        }
    }

    private static function timeout(TimeoutException $e, ConnectionConfig $config, ?Cancellation $cancellation): TimeoutException|ConnectTimeoutException
    {
        if ($cancellation !== null && $cancellation->isRequested()) {
            return $e;
        }

        return new ConnectTimeoutException(\sprintf('Connecting to MySQL (%s) took longer than %.3f s', $config->describe(), $config->connectTimeout));
    }
}
