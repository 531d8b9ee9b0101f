<?php

declare(strict_types=1);

namespace Bobbin\Ipc\Internal;

use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Async\ConnectFailedException;
use Bobbin\Async\SocketConnector;
use Bobbin\Async\StreamClosedException;
use Bobbin\Async\StreamWatcher;
use Bobbin\Async\TimeoutException;
use Bobbin\Ipc\Codec\FrameCodec;
use Bobbin\Ipc\ConnectionLostException;
use Bobbin\Ipc\ConnectTimeoutException;
use Bobbin\Ipc\Endpoint;
use Bobbin\Ipc\IpcException;

/**
 * One framed stream connection (unix or TCP) shared by many fibers.
 *
 * The wire is the shared contract's (FrameCodec): u32 little-endian length, then the payload,
 * with no id. The daemon answers one connection's frames strictly in order, so this connection
 * numbers its requests 1, 2, 3… in the order their frames go out and FrameCodec hands the Nth
 * response frame to request N. A cancelled request keeps its number: its answer is still read
 * and dropped, so every later answer reaches the right fiber. This class does the I/O only.
 *
 * @internal
 */
final class SocketConnection extends AbstractConnection
{
    /** Made by the first wait: a lone caller answered at once (a connection per request) never needs it. */
    private ?StreamWatcher $watcher = null;
    private readonly FrameCodec $frames;
    private string $out = '';
    /** Number of the last request queued for writing (frames leave in this order). */
    private int $sent = 0;
    private bool $flushing = false;
    private bool $flushScheduled = false;
    /** Answers found by the last read. */
    private int $lastDelivered = 0;
    /**
     * How often a read before waiting found data lately (0…64, a moving average). On a shared
     * vCPU the daemon usually answers before our write returns, and a read that finds the answer
     * saves the poll (a syscall and a loop tick, ~0.6 us); one that finds nothing costs ~0.2 us.
     * So reads come first while at least a quarter of them hit (that includes TCP, where they
     * hit ~97%), and only every 8th pump when they keep missing (daemon on another vCPU).
     */
    private int $readScore = 64;
    private int $pumps = 0;

    /** @param resource $stream */
    private function __construct(private $stream, int $maxFrame)
    {
        parent::__construct();
        $this->frames = new FrameCodec($maxFrame);
    }

    public static function open(Endpoint $endpoint, float $timeout, int $maxFrame): self
    {
        try {
            $stream = (new SocketConnector())->connect($endpoint->target, \microtime(true) + $timeout);
        } catch (TimeoutException) {
            throw new ConnectTimeoutException(\sprintf('Connecting to the IPC daemon at %s timed out after %.1f s', $endpoint->uri(), $timeout));
        } catch (ConnectFailedException $e) {
            throw new IpcException(\sprintf('Cannot connect to the IPC daemon at %s: %s', $endpoint->uri(), $e->getMessage()), 0, $e);
        }

        return new self($stream, $maxFrame);
    }

    public function request(string $payload, ?Cancellation $cancellation): string
    {
        if (!$this->open) {
            throw $this->lost();
        }
        // The number is taken where the frame joins the output, so numbers follow wire order.
        $id = ++$this->sent;
        // FrameCodec::frame(), written out: on the crowd's path the call measured ~2 % of its CPU.
        $frame = \pack('Va*', \strlen($payload), $payload);
        if ($this->isSameCaller() && $this->out === '' && $this->lastDelivered <= 1 && !$this->reader->isReading()) {
            // A lone caller: one write now. (Right after a read of many answers many fibers are
            // about to send: writing the first alone would split them.)
            $written = @\fwrite($this->stream, $frame);
            if ($written === false) {
                $this->lose(new ConnectionLostException('The IPC daemon closed the connection (write failed)'));
                throw $this->lost();
            }
            if ($written < \strlen($frame)) {
                $this->out = \substr($frame, $written);
                $this->flush();
            } elseif ($this->frames->awaitsOnly($id)) {
                $answer = $this->readLoneAnswer($cancellation === null);
                if ($answer !== null) {
                    return $answer;
                }
            }
        } else {
            // Busy connection: frames of this loop tick leave in one write at its end.
            $this->out .= $frame;
            if (!$this->flushing && !$this->flushScheduled) {
                $this->flushScheduled = true;
                Async::defer($this->flushAtEndOfTick(...));
            }
        }

        /** @var string $answer */
        $answer = $this->reader->await($id, $cancellation, $this);

        return $answer;
    }

    protected function somebodyWaits(): bool
    {
        return $this->flushing || parent::somebodyWaits();
    }

    private function flushAtEndOfTick(): void
    {
        $this->flushScheduled = false;
        if ($this->flushing || $this->out === '' || !$this->open) {
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
                    ($this->watcher ??= new StreamWatcher($this->stream))->awaitWritable();
                } catch (StreamClosedException) {
                    throw $this->lost();
                }
                $written = @\fwrite($this->stream, $this->out);
                if ($written === false) {
                    $this->lose(new ConnectionLostException('The IPC daemon closed the connection (write failed)'));
                    throw $this->lost();
                }
                $this->out = \substr($this->out, $written);
            }
        } finally {
            $this->flushing = false;
        }
    }

    /**
     * For the only request in flight: reads what has arrived and returns the answer when that is
     * exactly its one frame, without the shared reader (on a shared vCPU the daemon has usually
     * answered before our write returned). When nothing has and the loop has nothing else to
     * do (a plain script, an FPM request) and no cancellation could end the wait (its timer
     * would not be polled), it sleeps until the answer comes. Anything else
     * (part of a frame, more than one, EOF, a loop with other work) is left to the shared
     * reader's read. Reads are tracked like the pump's.
     */
    private function readLoneAnswer(bool $maySleep): ?string
    {
        $data = '';
        $score = $this->readScore;
        if ($score >= 16 || (++$this->pumps & 7) === 0) {
            $data = @\fread($this->stream, 262144);
            $this->readScore = $data !== '' && $data !== false
                ? $score + ((64 - $score) >> 2)
                : $score - ($score >> 2) - ($score > 0 ? 1 : 0);
        }
        if ($data === '' && $maySleep && Async::awaitReadableIfIdle($this->stream)) {
            // Nothing else could run meanwhile: we slept here as a blocking client does.
            $data = @\fread($this->stream, 262144);
        }
        if ($data === '' || $data === false) {
            return null; // nothing (the loop has other work) or EOF: the shared reader's read sees to it
        }
        $answer = $this->frames->takeSole($data); // anything but exactly our frame: the pump's
        if ($answer !== null) {
            $this->lastDelivered = 1;
        }

        return $answer;
    }

    /** @internal the SharedReader's (Async\ReplySource) */
    public function readReplies(?Cancellation $cancellation, bool $first): void
    {
        if (!$this->frames->isEmpty()) {
            try {
                $delivered = $this->frames->deliver($this->reader, $this->sent);
            } catch (IpcException $violation) {
                $this->lose($violation);
                throw $this->lost();
            }
            if ($delivered > 0) {
                $this->lastDelivered = $delivered;

                return; // the leader checks whether its own answer was among these
            }
        }
        if (!$this->open) {
            throw $this->lost();
        }
        $score = $this->readScore;
        if ($score >= 16 || (++$this->pumps & 7) === 0) {
            $data = @\fread($this->stream, 262144);
            if ($data !== '' && $data !== false) {
                $this->readScore = $score + ((64 - $score) >> 2);
                $this->frames->append($data);

                return;
            }
            // Nothing yet (or EOF, which the wait below reports: EOF makes the stream readable).
            $this->readScore = $score - ($score >> 2) - ($score > 0 ? 1 : 0);
        }
        try {
            ($this->watcher ??= new StreamWatcher($this->stream))->awaitReadable(null, $cancellation);
        } catch (StreamClosedException) {
            throw $this->lost();
        }
        $data = @\fread($this->stream, 262144);
        if ($data === false || ($data === '' && \feof($this->stream))) {
            $this->lose(new ConnectionLostException('The IPC daemon closed the connection before answering'));
            throw $this->lost();
        }
        $this->frames->append($data);
    }

    protected function releaseResources(): void
    {
        $this->watcher?->close();
        @\fclose($this->stream);
    }
}
