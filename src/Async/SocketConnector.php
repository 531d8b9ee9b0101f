<?php

declare(strict_types=1);

namespace Bobbin\Async;

/**
 * The one outgoing connect every client uses (MySQL, Redis, NATS, Tarantool, Ipc, Jobs'
 * local pool; PostgreSQL connects through libpq's own asynchronous connect instead): a
 * non-blocking connect to a TCP host or a unix socket, awaited on the loop within a deadline and
 * a cancellation, then, if asked, TLS. Whatever ends it early — a timeout, a cancellation, a
 * refusal, a failed handshake — closes the socket before the exception leaves: a caller never
 * holds a half-open descriptor.
 *
 * What a caller gets is a connected, non-blocking stream with PHP's read and write buffering
 * off (a readable socket then means unread bytes); on TCP with TCP_NODELAY (requests are sent
 * whole, so Nagle's delay only adds latency) and keep-alive probes, so that a peer gone without
 * a word (a host down, a dropped NAT entry) ends an idle connection instead of leaving it open.
 *
 * Protocols that start TLS after a plaintext exchange (MySQL's SSLRequest, NATS's INFO) call
 * startTls() on the connected stream when their prelude says so.
 *
 * Failures, by kind: ConnectFailedException (refused, unreachable, unresolved, no socket),
 * TimeoutException (the deadline passed), CancelledException (the cancellation fired; its own
 * exception, which is a TimeoutException for a TimeoutCancellation), TlsHandshakeException.
 * Each client wraps them in its own exceptions, as it always has.
 */
final class SocketConnector
{
    private const EAGAIN = 11;
    private const LONGEST_PAUSE_SECONDS = 0.05;

    public function __construct(
        private readonly bool $keepAlive = true,
        private readonly bool $noDelay = true,
    ) {
    }

    /**
     * @param float $deadline microtime(true) by which the connect (and TLS) must be done; \INF for none
     * @return resource
     * @throws ConnectFailedException|TimeoutException|CancelledException|TlsHandshakeException
     */
    public function connect(ConnectTarget $target, float $deadline, ?Cancellation $cancellation = null, ?ClientTls $tls = null): mixed
    {
        $cancellation?->throwIfRequested();
        $stream = $this->open($target, $deadline, $cancellation);
        try {
            \stream_set_blocking($stream, false);
            \stream_set_read_buffer($stream, 0);
            \stream_set_write_buffer($stream, 0);
            if (!$target->isUnix) {
                // A unix socket's connect is done or refused at once; a TCP one finishes when
                // the socket turns writable.
                self::awaitConnected($stream, $deadline, $cancellation);
                if ($this->keepAlive) {
                    self::enableKeepAlive($stream);
                }
            }
            if ($tls !== null) {
                self::startTls($stream, $tls, $deadline, $cancellation);
            }
        } catch (\Throwable $e) {
            @\fclose($stream);
            throw $e;
        }

        return $stream;
    }

    /**
     * TLS on a connected stream, verifying the server as $tls says; for protocols that ask for
     * it after a plaintext exchange (connect() does it at once when given a ClientTls). On
     * failure the stream is left open: it is the caller's, who closes it.
     *
     * @param resource $stream
     * @param StreamWatcher|null $watcher the stream's watcher, if its owner keeps one
     * @throws TlsHandshakeException|TimeoutException|CancelledException
     */
    public static function startTls(mixed $stream, ClientTls $tls, float $deadline, ?Cancellation $cancellation = null, ?StreamWatcher $watcher = null): void
    {
        TlsHandshake::asClient($stream, $tls->peerName, $tls->verifies(), $tls->caFile, $deadline, $cancellation, $watcher);
    }

    /**
     * @return resource
     * @throws ConnectFailedException|TimeoutException|CancelledException
     */
    private function open(ConnectTarget $target, float $deadline, ?Cancellation $cancellation): mixed
    {
        $pause = 0.001;
        while (true) {
            $errno = 0;
            $error = '';
            $stream = @\stream_socket_client(
                $target->uri,
                $errno,
                $error,
                null,
                \STREAM_CLIENT_CONNECT | \STREAM_CLIENT_ASYNC_CONNECT,
                // A context of its own: TLS writes its options (the CA, the peer name, whether to
                // verify) into the stream's context, and a shared one would hand them to the next.
                \stream_context_create(['socket' => ['tcp_nodelay' => $this->noDelay]]),
            );
            if ($stream !== false) {
                return $stream;
            }
            if (!$target->isUnix || $errno !== self::EAGAIN) {
                throw new ConnectFailedException((string) $error !== '' ? (string) $error : 'error ' . (int) $errno, (int) $errno);
            }
            // The unix listener's accept queue is full. TCP would wait (the kernel retries the
            // SYN); a unix connect is refused at once, so the waiting is done here, within the
            // same deadline.
            $left = $deadline - \microtime(true);
            if ($left <= 0.0) {
                throw new TimeoutException(\sprintf('Connecting to %s timed out: its accept queue stayed full', $target->uri));
            }
            Async::delay(\min($pause, $left), $cancellation);
            $pause = \min(self::LONGEST_PAUSE_SECONDS, $pause * 2);
        }
    }

    /**
     * @param resource $stream
     * @throws ConnectFailedException|TimeoutException|CancelledException
     */
    private static function awaitConnected(mixed $stream, float $deadline, ?Cancellation $cancellation): void
    {
        if (@\stream_socket_get_name($stream, true) !== false) {
            return; // over loopback the connect has usually finished already: nothing to wait for
        }
        Async::awaitWritable($stream, \is_finite($deadline) ? \max(0.0, $deadline - \microtime(true)) : null, $cancellation);
        if (@\stream_socket_get_name($stream, true) === false) {
            throw self::connectError($stream);
        }
    }

    /**
     * Why a finished connect failed: the socket's SO_ERROR (socket_last_error() of a socket just
     * imported says only "Success").
     *
     * @param resource $stream
     */
    private static function connectError(mixed $stream): ConnectFailedException
    {
        $socket = \function_exists('socket_import_stream') ? @\socket_import_stream($stream) : false;
        $errno = $socket instanceof \Socket ? @\socket_get_option($socket, \SOL_SOCKET, \SO_ERROR) : false;
        if (\is_int($errno) && $errno !== 0) {
            return new ConnectFailedException(\socket_strerror($errno), $errno);
        }

        return new ConnectFailedException('Connection refused');
    }

    /** @param resource $stream */
    private static function enableKeepAlive(mixed $stream): void
    {
        if (!\function_exists('socket_import_stream')) {
            return; // without ext-sockets there is no way to ask: the connection works without
        }
        $socket = @\socket_import_stream($stream);
        if ($socket instanceof \Socket) {
            @\socket_set_option($socket, \SOL_SOCKET, \SO_KEEPALIVE, 1);
        }
    }
}
