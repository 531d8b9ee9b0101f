<?php

declare(strict_types=1);

namespace Bobbin\Nats\Internal;

use Bobbin\Async\Cancellation;
use Bobbin\Async\ClientTls;
use Bobbin\Async\ConnectFailedException;
use Bobbin\Async\ConnectTarget;
use Bobbin\Async\EndOfTurnWriter;
use Bobbin\Async\OwnsResources;
use Bobbin\Async\SocketConnector;
use Bobbin\Async\StreamClosedException;
use Bobbin\Async\StreamWatcher;
use Bobbin\Async\TlsHandshakeException;
use Bobbin\Nats\ConnectionConfig;
use Bobbin\Nats\Exception\ConnectException;
use Bobbin\Nats\Exception\ConnectionLostException;

/**
 * One TCP connection to a NATS server: non-blocking, TCP_NODELAY, optionally TLS; reads what has
 * arrived, writes what the kernel takes. Waits go through the loop and throw its
 * TimeoutException/CancelledException as they are.
 *
 * @internal
 */
final class Socket
{
    use OwnsResources;

    private const READ_CHUNK = 262_144;

    private readonly StreamWatcher $watcher;
    private bool $encrypted = false;
    private bool $closed = false;
    private ?EndOfTurnWriter $writer = null;

    /** @param resource $stream */
    private function __construct(private readonly mixed $stream)
    {
        $this->watcher = new StreamWatcher($stream);
    }

    /** @throws ConnectException|\Bobbin\Async\CancelledException */
    public static function open(ConnectionConfig $config, float $deadline, ?Cancellation $cancellation): self
    {
        try {
            $stream = (new SocketConnector())->connect(ConnectTarget::tcp($config->host, $config->port), $deadline, $cancellation);
        } catch (ConnectFailedException $e) {
            throw new ConnectException(\sprintf('Cannot connect to NATS (%s): %s', $config->describe(), $e->getMessage()), 0, $e);
        }

        return new self($stream);
    }

    /** Upgrades the open connection to TLS (after the server's INFO), verifying the server unless told not to. */
    public function startTls(ConnectionConfig $config, float $deadline, ?Cancellation $cancellation): void
    {
        try {
            SocketConnector::startTls($this->stream, new ClientTls($config->host, $config->tlsInsecure, $config->tlsCa), $deadline, $cancellation, $this->watcher);
        } catch (TlsHandshakeException $e) {
            throw new ConnectException(\sprintf('TLS with NATS (%s) failed: %s', $config->describe(), $e->getMessage()));
        }
        $this->encrypted = true;
    }

    /**
     * What has arrived ('' when nothing has).
     *
     * @throws ConnectionLostException at the end of the stream
     */
    public function read(): string
    {
        $bytes = @\fread($this->stream, self::READ_CHUNK);
        if ($bytes === false || ($bytes === '' && \feof($this->stream))) {
            throw new ConnectionLostException('The server closed the connection');
        }
        if ($this->encrypted && $bytes !== '') {
            // OpenSSL may hold more decrypted bytes than one read returns, which would never make
            // the socket readable again: read until it has nothing.
            while (($more = @\fread($this->stream, self::READ_CHUNK)) !== false && $more !== '') {
                $bytes .= $more;
            }
        }

        return $bytes;
    }

    /**
     * Writes what the kernel takes now; the number of bytes written.
     *
     * @throws ConnectionLostException
     */
    public function write(string $bytes): int
    {
        if ($this->closed) {
            throw new ConnectionLostException('The connection was closed');
        }
        $written = @\fwrite($this->stream, $bytes);
        if ($written === false) {
            throw new ConnectionLostException('The connection broke while sending');
        }

        return $written;
    }

    /** @throws ConnectionLostException|\Bobbin\Async\CancelledException */
    public function awaitReadable(?float $timeout = null, ?Cancellation $cancellation = null): void
    {
        try {
            $this->watcher->awaitReadable($timeout, $cancellation);
        } catch (StreamClosedException) {
            throw new ConnectionLostException('The connection was closed');
        }
    }

    /** @throws ConnectionLostException|\Bobbin\Async\CancelledException */
    public function awaitWritable(?float $timeout = null, ?Cancellation $cancellation = null): void
    {
        try {
            $this->watcher->awaitWritable($timeout, $cancellation);
        } catch (StreamClosedException) {
            throw new ConnectionLostException('The connection was closed');
        }
    }

    public function isEncrypted(): bool
    {
        return $this->encrypted;
    }

    public function isClosed(): bool
    {
        return $this->closed;
    }

    /** $writer writes to this socket from now on, until it closes. */
    public function attachWriter(EndOfTurnWriter $writer): void
    {
        $this->writer = $writer;
        $writer->attach($this->stream, $this->watcher);
    }

    /** Closes the socket; a fiber waiting on it gets ConnectionLostException. */
    public function close(): void
    {
        if ($this->closed) {
            return;
        }
        $this->closed = true;
        $this->writer?->detach($this->stream); // never a write to a closed stream
        $this->watcher->close();
        @\fclose($this->stream);
    }
}
