<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Internal;

use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Async\ClientTls;
use Bobbin\Async\ConnectFailedException;
use Bobbin\Async\ConnectTarget;
use Bobbin\Async\IdleSocketPeek;
use Bobbin\Async\OwnsResources;
use Bobbin\Async\SocketConnector;
use Bobbin\Async\StreamClosedException;
use Bobbin\Async\StreamWatcher;
use Bobbin\Async\TlsHandshakeException;
use Bobbin\Mysql\ConnectionConfig;
use Bobbin\Mysql\Exception\ConnectException;
use Bobbin\Mysql\Exception\ConnectionLostException;

/**
 * The socket of one connection: non-blocking TCP (TCP_NODELAY, keep-alive) or unix socket opened
 * by Async\SocketConnector, optionally TLS,
 * read into a PacketBuffer and written whole, every wait through the loop (or, with nothing else
 * on the loop and nothing to honour, one blocking wait as a plain client would).
 *
 * Waits throw the loop's TimeoutException/CancelledException as they are: the connection
 * decides what an interrupted exchange means.
 *
 * @internal
 */
final class Transport
{
    use OwnsResources;

    private const READ_CHUNK = 262_144;

    public readonly PacketBuffer $packets;
    private readonly StreamWatcher $watcher;
    private bool $encrypted = false;
    private bool $closed = false;
    private ?IdleSocketPeek $idlePeek = null;

    /** @param resource $stream */
    private function __construct(private readonly mixed $stream, public readonly bool $isUnixSocket)
    {
        $this->packets = new PacketBuffer();
        $this->watcher = new StreamWatcher($stream);
    }

    /**
     * @throws ConnectException|\Bobbin\Async\TimeoutException|\Bobbin\Async\CancelledException
     */
    public static function open(ConnectionConfig $config, float $deadline, ?Cancellation $cancellation): self
    {
        $unix = $config->unixSocket !== null;
        $target = $config->unixSocket !== null ? ConnectTarget::unix($config->unixSocket) : ConnectTarget::tcp($config->host, $config->port);
        try {
            $stream = (new SocketConnector())->connect($target, $deadline, $cancellation);
        } catch (ConnectFailedException $e) {
            throw new ConnectException(\sprintf('Cannot connect to MySQL (%s): %s', $config->describe(), $e->getMessage()), 0, '', $e);
        }

        return new self($stream, $unix);
    }

    public function isEncrypted(): bool
    {
        return $this->encrypted;
    }

    /**
     * Starts TLS on the open socket (after an SSLRequest), verifying the server's certificate
     * and name when the settings do (ConnectionConfig::verifiesTls()).
     */
    public function startTls(ConnectionConfig $config, float $deadline, ?Cancellation $cancellation): void
    {
        try {
            SocketConnector::startTls($this->stream, new ClientTls($config->host, !$config->verifiesTls(), $config->tlsCa), $deadline, $cancellation, $this->watcher);
        } catch (TlsHandshakeException $e) {
            throw new ConnectException(\sprintf('TLS with MySQL (%s) failed: %s', $config->describe(), $e->getMessage()));
        }
        $this->encrypted = true;
    }

    /**
     * The next packet's payload, reading (and waiting) as needed. $justSent: a request just
     * went out, so the socket need not be read before the first wait.
     *
     * @throws ConnectionLostException|\Bobbin\Async\TimeoutException|\Bobbin\Async\CancelledException
     */
    public function nextPayload(?float $deadline, ?Cancellation $cancellation, bool $justSent = false): string
    {
        while (($payload = $this->packets->next()) === null) {
            if ($justSent) {
                // Right after a request nothing can have arrived yet: wait before the first read
                // instead of paying for a read that finds nothing.
                $justSent = false;
                $this->wait($deadline, $cancellation);
            }
            $this->receive($deadline, $cancellation);
        }

        return $payload;
    }

    /**
     * Reads what has arrived, waiting first when nothing has.
     *
     * @throws ConnectionLostException|\Bobbin\Async\TimeoutException|\Bobbin\Async\CancelledException
     */
    public function receive(?float $deadline, ?Cancellation $cancellation): void
    {
        while (true) {
            $bytes = @\fread($this->stream, self::READ_CHUNK);
            if ($bytes !== false && $bytes !== '') {
                $this->packets->append($bytes);
                if ($this->encrypted) {
                    // OpenSSL may hold more decrypted bytes than one read returns, which would
                    // never make the socket readable again: read until it has nothing.
                    while (($more = @\fread($this->stream, self::READ_CHUNK)) !== false && $more !== '') {
                        $this->packets->append($more);
                    }
                }

                return;
            }
            if ($bytes === false || \feof($this->stream)) {
                $this->close();
                throw new ConnectionLostException('The server closed the connection');
            }
            $this->wait($deadline, $cancellation);
        }
    }

    /**
     * Sends $bytes whole, waiting while the socket buffer is full.
     *
     * @throws ConnectionLostException|\Bobbin\Async\TimeoutException|\Bobbin\Async\CancelledException
     */
    public function send(string $bytes, ?float $deadline = null, ?Cancellation $cancellation = null): void
    {
        if ($this->closed) {
            throw new ConnectionLostException('The connection is closed');
        }
        while (true) {
            $written = @\fwrite($this->stream, $bytes);
            if ($written === false) {
                $this->close();
                throw new ConnectionLostException('The connection broke while sending');
            }
            if ($written === \strlen($bytes)) {
                return;
            }
            $bytes = \substr($bytes, $written);
            try {
                $this->watcher->awaitWritable($deadline === null ? null : \max(0.0, $deadline - \microtime(true)), $cancellation);
            } catch (StreamClosedException) {
                throw new ConnectionLostException('The connection was closed while sending');
            }
        }
    }

    /** One write attempt that never waits and never fails (a goodbye before closing). */
    public function sendIfPossible(string $bytes): void
    {
        if (!$this->closed) {
            @\fwrite($this->stream, $bytes);
        }
    }

    /**
     * Whether anything (data, an end of stream) arrived while nothing was asked: a peek at the
     * socket, no round trip. An idle session has nothing to say.
     */
    public function hasArrived(): bool
    {
        if ($this->packets->hasUnreadBytes()) {
            return true;
        }
        $this->idlePeek ??= new IdleSocketPeek($this->stream);

        return $this->idlePeek->firstByte() !== null; // hasArrived(), one call fewer per checkout
    }

    /** The exchange is over and the session idle: what hasArrived() may ask the loop about. */
    public function markIdle(): void
    {
        ($this->idlePeek ??= new IdleSocketPeek($this->stream))->markIdle();
    }

    public function isClosed(): bool
    {
        return $this->closed;
    }

    public function close(): void
    {
        if ($this->closed) {
            return;
        }
        $this->closed = true;
        $this->idlePeek = null;
        $this->watcher->close();
        @\fclose($this->stream);
    }

    private function wait(?float $deadline, ?Cancellation $cancellation): void
    {
        // A plain script or PHP-FPM request with nothing else on the loop and no bound to keep:
        // sleep in one blocking wait, as a blocking client would.
        if ($deadline === null && $cancellation === null && !$this->encrypted && Async::awaitReadableIfIdle($this->stream)) {
            return;
        }
        try {
            $this->watcher->awaitReadable($deadline === null ? null : \max(0.0, $deadline - \microtime(true)), $cancellation);
        } catch (StreamClosedException) {
            throw new ConnectionLostException('The connection was closed while waiting for the server');
        }
    }
}
