<?php

declare(strict_types=1);

namespace Bobbin\Postgres\Internal;

use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Async\CancelledException;
use Bobbin\Async\TimeoutException;
use Bobbin\Postgres\ConnectionConfig;
use Bobbin\Postgres\Exception\ConnectException;
use Bobbin\Postgres\Exception\ConnectTimeoutException;
use PgSql\Connection as PgConnection;

/**
 * Opens the libpq session a Postgres\Connection drives: the connect polled through the loop
 * within connectTimeout, the TLS rule of docs/POSTGRES.md ("TLS": verified when the server
 * offers it, clear text only when it offers none), and the blocking persistent session of the
 * classic SAPIs. Apart from Connection because connecting runs once per session and shares
 * nothing with the statement path but the handle and socket it hands over.
 *
 * @internal used by Postgres\Connection::connect()
 */
final class SessionOpener
{
    public function __construct(private readonly ConnectionConfig $config)
    {
    }

    /**
     * A new session, without blocking the loop.
     *
     * @return array{PgConnection, resource} the handle and its pg_socket() stream (fetched once: each call makes a new stream)
     *
     * @throws ConnectException|ConnectTimeoutException|CancelledException
     */
    public function open(?Cancellation $cancellation): array
    {
        $config = $this->config;
        $deadline = \microtime(true) + $config->connectTimeout;
        try {
            return $this->attempt($config->libpqString(), $deadline, $cancellation);
        } catch (ConnectException $e) {
            $clearText = $config->clearTextFallback();
            // The default mode: verified TLS when the server offers it, clear text when it offers
            // none (docs/POSTGRES.md, "TLS"); a certificate that fails the check never gets here.
            if ($clearText === null || !\str_contains($e->getMessage(), SslSettings::NO_TLS_ON_SERVER)) {
                throw $e;
            }

            return $this->attempt($clearText, $deadline, $cancellation);
        }
    }

    /**
     * Reuses (or opens) this PHP process's persistent session. Only classic SAPIs ask for it:
     * there a blocking connect once per worker child is what saves the connect per request.
     * Results a request that died half-way left behind are discarded; its open transaction is
     * the caller's to roll back (pg_transaction_status() tells).
     *
     * @return array{PgConnection, resource}
     *
     * @throws ConnectException
     */
    public function openPersistent(): array
    {
        $config = $this->config;
        $warning = '';
        \set_error_handler(static function (int $type, string $message) use (&$warning): bool {
            $warning = $message;

            return true;
        });
        try {
            // blocking allowed: persistent sessions exist only outside the event-loop server.
            $handle = \pg_pconnect($config->libpqString());
            if ($handle === false && $config->clearTextFallback() !== null && \str_contains($warning, SslSettings::NO_TLS_ON_SERVER)) {
                $handle = \pg_pconnect($config->clearTextFallback()); // as in open(): the server offers no TLS
            }
            if ($handle !== false && \pg_connection_status($handle) !== \PGSQL_CONNECTION_OK) {
                // The session broke since an earlier request (server restart): open it anew.
                \pg_connection_reset($handle);
            }
        } finally {
            \restore_error_handler();
        }
        if ($handle === false || \pg_connection_status($handle) !== \PGSQL_CONNECTION_OK) {
            throw $this->refused($warning);
        }
        // Results or a transaction left behind by a request that died half-way.
        while (@\pg_get_result($handle) !== false) {
        }
        $socket = @\pg_socket($handle);
        if ($socket === false) {
            throw $this->noSocket();
        }

        return [$handle, $socket];
    }

    /** libpq's message on one line. */
    public static function cleanMessage(string $message): string
    {
        return \trim((string) \preg_replace('/\s+/', ' ', $message));
    }

    /**
     * One connect attempt with the given libpq string, polled through the loop.
     *
     * @return array{PgConnection, resource}
     *
     * @throws ConnectException|ConnectTimeoutException|CancelledException
     */
    private function attempt(#[\SensitiveParameter] string $libpq, float $deadline, ?Cancellation $cancellation): array
    {
        $warning = '';
        \set_error_handler(static function (int $type, string $message) use (&$warning): bool {
            $warning = $message;

            return true;
        });
        try {
            $handle = \pg_connect($libpq, \PGSQL_CONNECT_ASYNC | \PGSQL_CONNECT_FORCE_NEW);
        } finally {
            \restore_error_handler();
        }
        if ($handle === false) {
            throw $this->refused($warning);
        }

        try {
            while (($status = @\pg_connect_poll($handle)) !== \PGSQL_POLLING_OK) {
                if ($status === \PGSQL_POLLING_FAILED) {
                    throw new ConnectException(\sprintf(
                        'Cannot connect to PostgreSQL (%s): %s',
                        $this->config->describe(),
                        $this->explain(self::cleanMessage((string) @\pg_last_error($handle))),
                    ));
                }
                $remaining = $deadline - \microtime(true);
                if ($remaining <= 0.0) {
                    throw $this->timedOut();
                }
                // libpq may switch sockets while trying several addresses: ask for it each round.
                $socket = @\pg_socket($handle);
                if ($socket === false) {
                    throw $this->noSocket();
                }
                try {
                    if ($status === \PGSQL_POLLING_READING) {
                        Async::awaitReadable($socket, $remaining, $cancellation);
                    } else {
                        Async::awaitWritable($socket, $remaining, $cancellation);
                    }
                } catch (TimeoutException $e) {
                    if ($cancellation !== null && $cancellation->isRequested()) {
                        throw $e;
                    }
                    throw $this->timedOut();
                }
            }
            $socket = @\pg_socket($handle);
            if ($socket === false) {
                throw $this->noSocket();
            }
        } catch (\Throwable $e) {
            @\pg_close($handle);
            throw $e;
        }

        return [$handle, $socket];
    }

    /** The connect was refused before any socket: $warning is what pg_(p)connect() warned. */
    private function refused(string $warning): ConnectException
    {
        return new ConnectException(\sprintf(
            'Cannot connect to PostgreSQL (%s): %s',
            $this->config->describe(),
            $this->explain(self::cleanMessage((string) \preg_replace('/^.*?Unable to connect to PostgreSQL server:\s*/s', '', $warning))),
        ));
    }

    /** libpq's reason, and for a certificate the check refused, the ways past it and their cost. */
    private function explain(string $reason): string
    {
        $refusedByTheCheck = !$this->config->isTlsInsecure()
            && \preg_match('/certificate verify failed|does not match host name|root certificate file/i', $reason) === 1;

        return $refusedByTheCheck ? $reason . ' (' . SslSettings::HINT . ')' : $reason;
    }

    private function noSocket(): ConnectException
    {
        return new ConnectException(\sprintf('Cannot connect to PostgreSQL (%s): no socket', $this->config->describe()));
    }

    private function timedOut(): ConnectTimeoutException
    {
        return new ConnectTimeoutException(\sprintf(
            'Connecting to PostgreSQL (%s) took longer than %.3f s',
            $this->config->describe(),
            $this->config->connectTimeout,
        ));
    }
}
