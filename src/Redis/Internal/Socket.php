<?php

declare(strict_types=1);

namespace Bobbin\Redis\Internal;

use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Async\ClientTls;
use Bobbin\Async\ConnectFailedException;
use Bobbin\Async\ConnectTarget;
use Bobbin\Async\EndOfTurnWriter;
use Bobbin\Async\IdleSocketPeek;
use Bobbin\Async\OwnsResources;
use Bobbin\Async\SocketConnector;
use Bobbin\Async\StreamClosedException;
use Bobbin\Async\StreamWatcher;
use Bobbin\Async\TlsHandshakeException;
use Bobbin\Redis\ConnectionConfig;
use Bobbin\Redis\Exception\ConnectException;
use Bobbin\Redis\Exception\ConnectionLostException;

/**
 * The socket of one connection: non-blocking TCP (TCP_NODELAY, keep-alive probes) or a unix
 * socket, optionally TLS; reads return what has arrived without waiting, writes what fits; every
 * wait goes through the loop. Read buffering is off, so a readable socket means unread bytes.
 *
 * @internal
 */
final class Socket
{
    use OwnsResources;

    /** What one fread() asks for: read() returns at most this much from a plain socket (TLS reads on). */
    public const READ_CHUNK = 262_144;

    private readonly StreamWatcher $watcher;
    private ?IdleSocketPeek $idlePeek = null;
    private bool $closed = false;

    /** @param resource $stream */
    private function __construct(private readonly mixed $stream, public readonly bool $encrypted)
    {
        $this->watcher = new StreamWatcher($stream);
        if ($encrypted) {
            $this->watcher->noteTlsStarted();
        }
    }

    /**
     * @throws ConnectException|\Bobbin\Async\TimeoutException|\Bobbin\Async\CancelledException
     */
    public static function open(ConnectionConfig $config, float $deadline, ?Cancellation $cancellation): self
    {
        $unix = $config->unixSocket !== null;
        $target = $config->unixSocket !== null ? ConnectTarget::unix($config->unixSocket) : ConnectTarget::tcp($config->host, $config->port);
        $tls = !$unix && $config->tls ? new ClientTls($config->host, $config->tlsInsecure, $config->tlsCa) : null;
        try {
            $stream = (new SocketConnector())->connect($target, $deadline, $cancellation, $tls);
        } catch (ConnectFailedException $e) {
            throw new ConnectException(\sprintf('Cannot connect to Redis (%s): %s', $config->describe(), $e->getMessage()), 0, $e);
        } catch (TlsHandshakeException $e) {
            throw new ConnectException(\sprintf('TLS with Redis (%s) failed: %s', $config->describe(), $e->getMessage()));
        }

        return new self($stream, $tls !== null);
    }

    /**
     * What has arrived, without waiting: '' when nothing has, null at the end of the stream.
     */
    public function read(): ?string
    {
        if ($this->closed) {
            return null;
        }
        $bytes = @\fread($this->stream, self::READ_CHUNK);
        if ($bytes === false) {
            return null;
        }
        if ($bytes === '') {
            return \feof($this->stream) ? null : '';
        }
        if ($this->encrypted) {
            // OpenSSL may hold decrypted bytes that would never make the socket readable again.
            while (($more = @\fread($this->stream, self::READ_CHUNK)) !== false && $more !== '') {
                $bytes .= $more;
            }
        }

        return $bytes;
    }

    /**
     * Writes what fits now; the number of bytes written (0 when the buffer is full).
     *
     * @throws ConnectionLostException
     */
    public function write(string $bytes): int
    {
        $written = $this->closed ? false : @\fwrite($this->stream, $bytes);
        if ($written === false) {
            throw new ConnectionLostException('The connection broke while sending');
        }

        return $written;
    }

    /**
     * Waits until the socket is readable. Without a cancellation, and with nothing else on the
     * loop (a script, a PHP-FPM request), one blocking wait as a plain client would.
     *
     * @throws ConnectionLostException|\Bobbin\Async\CancelledException
     */
    public function awaitReadable(?Cancellation $cancellation): void
    {
        if ($cancellation === null && !$this->encrypted && Async::awaitReadableIfIdle($this->stream)) {
            return;
        }
        try {
            $this->watcher->awaitReadable(null, $cancellation);
        } catch (StreamClosedException) {
            throw new ConnectionLostException('The connection was closed while waiting for the server');
        }
    }

    /** @throws ConnectionLostException|\Bobbin\Async\CancelledException */
    public function awaitWritable(?Cancellation $cancellation): void
    {
        try {
            $this->watcher->awaitWritable(null, $cancellation);
        } catch (StreamClosedException) {
            throw new ConnectionLostException('The connection was closed while sending');
        }
    }

    /** Whether anything (data, an end of stream) is there to read now: a zero-timeout poll. */
    public function isReadableNow(): bool
    {
        return !$this->closed && Async::isReadableNow($this->stream);
    }

    /**
     * Whether anything (data, the end of the stream) arrived while the connection sat idle: the
     * pools' peek (IdleSocketPeek), often without a system call; for a liveness check before
     * sending, not for reading what must not be missed (isReadableNow() polls for real).
     */
    public function hasArrived(): bool
    {
        return $this->closed || ($this->idlePeek ??= new IdleSocketPeek($this->stream))->hasArrived();
    }

    /** Nothing is in flight from now: what hasArrived() may ask the loop about. */
    public function markIdle(): void
    {
        ($this->idlePeek ??= new IdleSocketPeek($this->stream))->markIdle();
    }

    public function isClosed(): bool
    {
        return $this->closed;
    }

    /** $writer writes to this socket from now on; close() wakes a writer waiting for room. */
    public function attachWriter(EndOfTurnWriter $writer): void
    {
        if (!$this->closed) {
            $writer->attach($this->stream, $this->watcher);
        }
    }

    public function close(): void
    {
        if ($this->closed) {
            return;
        }
        $this->closed = true;
        $this->watcher->close();
        @\fclose($this->stream);
    }
}
