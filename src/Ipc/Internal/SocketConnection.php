<?php

declare(strict_types=1);

namespace Bobbin\Ipc\Internal;

use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Async\StreamClosedException;
use Bobbin\Async\StreamWatcher;
use Bobbin\Async\TimeoutException;
use Bobbin\Ipc\ConnectionLostException;
use Bobbin\Ipc\Endpoint;
use Bobbin\Ipc\IpcException;
use Bobbin\Ipc\Transport;
use Revolt\EventLoop;

/**
 * One framed stream connection (unix or TCP) shared by many fibers.
 *
 * The wire is the shared contract's: u32 little-endian length, then the payload, with no id. The
 * daemon answers one connection's frames strictly in order, so this connection numbers its
 * requests 1, 2, 3… in the order their frames go out and hands the Nth response frame to
 * request N. A cancelled request keeps its number: its answer is still read and dropped, so every
 * later answer reaches the right fiber.
 *
 * @internal
 */
final class SocketConnection implements FramedConnection
{
    private readonly StreamWatcher $watcher;
    private readonly ResponseRouter $router;
    private string $in = '';
    private string $out = '';
    /** Number of the last request queued for writing (frames leave in this order). */
    private int $sent = 0;
    /** Number of the last response frame read. */
    private int $received = 0;
    private bool $flushing = false;
    private bool $flushScheduled = false;
    /** Answers found by the last read. */
    private int $lastDelivered = 0;
    private readonly \Closure $flushAtEndOfTick;
    private ?\Throwable $lostReason = null;
    private readonly \Closure $pump;

    /** @param resource $stream */
    private function __construct(private $stream, private readonly int $maxFrame)
    {
        $this->watcher = new StreamWatcher($stream);
        $this->router = new ResponseRouter();
        $this->pump = $this->pump(...);
        $this->flushAtEndOfTick = $this->flushAtEndOfTick(...);
    }

    public static function open(Endpoint $endpoint, float $timeout, int $maxFrame): self
    {
        $context = \stream_context_create(['socket' => ['tcp_nodelay' => true]]);
        $errno = 0;
        $errstr = '';
        $stream = @\stream_socket_client(
            $endpoint->uri(),
            $errno,
            $errstr,
            $timeout,
            \STREAM_CLIENT_CONNECT | \STREAM_CLIENT_ASYNC_CONNECT,
            $context,
        );
        if ($stream === false) {
            throw new IpcException(\sprintf('Cannot connect to the IPC daemon at %s: %s', $endpoint->uri(), $errstr ?: "error $errno"));
        }
        \stream_set_blocking($stream, false);
        if ($endpoint->transport === Transport::Tcp) {
            // An asynchronous TCP connect finishes when the socket turns writable.
            try {
                Async::awaitWritable($stream, $timeout);
            } catch (TimeoutException) {
                \fclose($stream);
                throw new IpcException(\sprintf('Connecting to the IPC daemon at %s timed out after %.1f s', $endpoint->uri(), $timeout));
            }
            if (@\stream_socket_get_name($stream, true) === false) {
                \fclose($stream);
                throw new IpcException(\sprintf('Cannot connect to the IPC daemon at %s: connection refused', $endpoint->uri()));
            }
        }
        \stream_set_read_buffer($stream, 0);
        \stream_set_write_buffer($stream, 0);

        return new self($stream, $maxFrame);
    }

    public function isOpen(): bool
    {
        return $this->lostReason === null;
    }

    public function request(string $payload, ?Cancellation $cancellation): string
    {
        if ($this->lostReason !== null) {
            throw $this->lostReason;
        }
        // The number is taken where the frame joins the output, so numbers follow wire order.
        $id = ++$this->sent;
        $frame = \pack('V', \strlen($payload)) . $payload;
        if ($this->out === '' && $this->lastDelivered <= 1 && !$this->router->hasWaiters()) {
            // A lone caller: one write now. (Right after a read of many answers many fibers are
            // about to send: writing the first alone would split them.)
            $written = @\fwrite($this->stream, $frame);
            if ($written === false) {
                $this->lose(new ConnectionLostException('The IPC daemon closed the connection (write failed)'));
                throw $this->lostReason ?? new ConnectionLostException('lost');
            }
            if ($written < \strlen($frame)) {
                $this->out = \substr($frame, $written);
                $this->flush();
            }
        } else {
            // Busy connection: frames of this loop tick leave in one write at its end.
            $this->out .= $frame;
            if (!$this->flushing && !$this->flushScheduled) {
                $this->flushScheduled = true;
                EventLoop::defer($this->flushAtEndOfTick);
            }
        }

        return $this->router->await($id, $cancellation, $this->pump);
    }

    public function close(string $why = 'The IPC connection was closed'): void
    {
        $this->lose(new ConnectionLostException($why));
    }

    private function flushAtEndOfTick(): void
    {
        $this->flushScheduled = false;
        if ($this->flushing || $this->out === '' || $this->lostReason !== null) {
            return;
        }
        $written = @\fwrite($this->stream, $this->out);
        if ($written === false) {
            $this->lose(new ConnectionLostException('The IPC daemon closed the connection (write failed)'));

            return;
        }
        $this->out = \substr($this->out, $written);
        if ($this->out !== '') {
            // The socket buffer is full: a fiber waits for room (a loop callback cannot).
            Async::run($this->flush(...))->ignore();
        }
    }

    private function flush(): void
    {
        $this->flushing = true;
        try {
            while ($this->out !== '') {
                try {
                    $this->watcher->awaitWritable();
                } catch (StreamClosedException) {
                    throw $this->lostReason ?? new ConnectionLostException('The IPC connection was closed');
                }
                $written = @\fwrite($this->stream, $this->out);
                if ($written === false) {
                    $this->lose(new ConnectionLostException('The IPC daemon closed the connection (write failed)'));
                    throw $this->lostReason ?? new ConnectionLostException('lost');
                }
                $this->out = \substr($this->out, $written);
            }
        } finally {
            $this->flushing = false;
        }
    }

    private function pump(?Cancellation $cancellation): void
    {
        $in = $this->in;
        $length = \strlen($in);
        $pos = 0;
        $delivered = 0;
        while ($length - $pos >= 4) {
            $header = \unpack('V', $in, $pos);
            \assert($header !== false); // four bytes are there: checked above
            $size = $header[1];
            // A control frame (top bit set) never answers a request; neither does an answer
            // nobody asked for.
            if (($size & 0x80000000) !== 0 || $size > $this->maxFrame || $this->received >= $this->sent) {
                $this->lose(new IpcException(\sprintf('The IPC daemon sent an unexpected frame (length word 0x%08x)', $size)));
                throw $this->lostReason ?? new IpcException('bad frame');
            }
            if ($length - $pos < 4 + $size) {
                break;
            }
            $this->router->deliver(++$this->received, \substr($in, $pos + 4, $size));
            $pos += 4 + $size;
            $delivered++;
        }
        if ($pos > 0) {
            $this->in = $pos === $length ? '' : \substr($in, $pos);
            $this->lastDelivered = $delivered;

            return; // the leader checks whether its own answer was among these
        }
        if ($this->lostReason !== null) {
            throw $this->lostReason;
        }
        try {
            $this->watcher->awaitReadable(null, $cancellation);
        } catch (StreamClosedException) {
            throw $this->lostReason ?? new ConnectionLostException('The IPC connection was closed');
        }
        $data = @\fread($this->stream, 262144);
        if ($data === false || ($data === '' && \feof($this->stream))) {
            $this->lose(new ConnectionLostException('The IPC daemon closed the connection before answering'));
            throw $this->lostReason ?? new ConnectionLostException('lost');
        }
        $this->in .= $data;
    }

    private function lose(\Throwable $reason): void
    {
        if ($this->lostReason !== null) {
            return;
        }
        $this->lostReason = $reason;
        $this->watcher->close();
        @\fclose($this->stream);
        $this->router->failAll($reason);
    }
}
