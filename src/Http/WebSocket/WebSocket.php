<?php

declare(strict_types=1);

namespace Bobbin\Http\WebSocket;

use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Async\DeferredFuture;
use Bobbin\Async\OwnsResources;
use Bobbin\Async\StreamClosedException;
use Bobbin\Async\StreamWatcher;
use Bobbin\Async\TimeoutException;
use Bobbin\Async\Timer;
use Psr\Http\Message\ServerRequestInterface;

/**
 * One WebSocket connection after the handshake, handed to the application's closure in the
 * request's fiber (WebSocketUpgrade::accept()). receive() returns the client's messages and
 * answers pings and the close handshake itself; send() may be called from any fiber (a chat's
 * broadcast): frames queue in order, and once more than maxBufferedBytes wait for a slow
 * client, the sender waits too (back-pressure) rather than the worker's memory growing.
 */
final class WebSocket
{
    use OwnsResources;

    private readonly FrameCodec $codec;
    private readonly MessageAssembler $assembler;
    private string $outbound = '';
    private bool $flushing = false;
    /** Senders waiting for the queue to shrink. */
    private ?DeferredFuture $drained = null;
    private bool $closeSent = false;
    private bool $closed = false;
    private bool $receiving = false;
    /** The code the connection ended with (1006 when it ended without a close frame). */
    private ?int $closeCode = null;
    /** After a going-away close (goAway()): ends the connection if the client never answers. */
    private ?Timer $goneAfter = null;

    /**
     * @param resource $socket
     * @param string $inbound bytes the client sent after its handshake, already read
     * @internal made by the server for WebSocketUpgrade::accept()'s closure
     */
    public function __construct(
        private $socket,
        private readonly StreamWatcher $watcher,
        private string $inbound,
        private readonly WebSocketOptions $options,
        private readonly ServerRequestInterface $request,
        private readonly ?PerMessageDeflate $deflate = null,
        private readonly ?string $protocol = null,
    ) {
        $this->codec = new FrameCodec($options->maxMessageBytes, $deflate !== null);
        $this->assembler = new MessageAssembler($options->maxMessageBytes);
    }

    /** The handshake request (its headers, cookies, query, attributes). */
    public function request(): ServerRequestInterface
    {
        return $this->request;
    }

    /** The subprotocol the handshake agreed on (WebSocketUpgrade::accept()'s $protocols), or null. */
    public function protocol(): ?string
    {
        return $this->protocol;
    }

    public function isOpen(): bool
    {
        return !$this->closed && !$this->closeSent;
    }

    /** How it ended: the close code the client sent (1005: none given), or 1006 when it vanished; null while open. */
    public function closeCode(): ?int
    {
        return $this->closeCode;
    }

    /** The client's next message; null once the WebSocket is closed (by either side, or by a protocol error, answered with its close code). */
    public function receive(?Cancellation $cancellation = null): ?Message
    {
        $this->receiving = true;
        try {
            return $this->nextMessage($cancellation);
        } finally {
            $this->receiving = false;
        }
    }

    /** @throws WebSocketClosedException once a close began */
    public function send(string $text): void
    {
        $this->sendFrame(Opcode::Text, $text);
    }

    /** @throws WebSocketClosedException once a close began */
    public function sendBinary(string $data): void
    {
        $this->sendFrame(Opcode::Binary, $data);
    }

    /** @throws WebSocketClosedException once a close began */
    public function ping(string $payload = ''): void
    {
        $this->sendFrame(Opcode::Ping, \substr($payload, 0, 125));
    }

    /** Starts the close handshake and waits (up to the close timeout) for the client's answer. */
    public function close(int $code = CloseCode::NORMAL, string $reason = ''): void
    {
        if ($this->closed) {
            return;
        }
        if (!$this->closeSent) {
            if (!CloseCode::maySend($code)) {
                throw new \InvalidArgumentException(\sprintf('close code %d may not be sent', $code));
            }
            $this->closeSent = true;
            $this->enqueue(FrameCodec::encode(Opcode::Close, CloseCode::payload($code, $reason)));
        }
        if ($this->receiving) {
            return; // the fiber in receive() reads the client's close frame
        }
        try {
            $deadline = \microtime(true) + $this->options->closeTimeout;
            while (!$this->closed) {
                $this->readSome(\max(0.001, $deadline - \microtime(true)));
                while (!$this->closed && ($frame = $this->codec->decode($this->inbound)) !== null) {
                    if ($frame->opcode === Opcode::Close) {
                        $this->end(CloseCode::parse($frame->payload));
                    }
                }
            }
        } catch (TimeoutException | ProtocolViolation) {
            $this->end(1006);
        }
    }

    /** @internal the server's end of the closure: a WebSocket left open is closed normally, one left by an exception with 1011 */
    public function finish(?\Throwable $error): void
    {
        if (!$this->closed) {
            $this->close($error === null ? CloseCode::NORMAL : CloseCode::INTERNAL_ERROR);
        }
    }

    /**
     * @internal the server began a graceful stop: a close frame 1001 goes out and receive()
     * returns null once the client answers it (the closure's loop ends by itself), or after the
     * close timeout. Called by the stop, outside this connection's fiber, so it never waits.
     */
    public function goAway(): void
    {
        if ($this->closed || $this->closeSent) {
            return;
        }
        $this->closeSent = true;
        $this->outbound .= FrameCodec::encode(Opcode::Close, CloseCode::payload(CloseCode::GOING_AWAY));
        if (!$this->flushing) {
            Async::run($this->flush(...));
        }
        $this->goneAfter = Timer::after($this->options->closeTimeout, function (): void {
            $this->goneAfter = null;
            $this->end(1006);
        });
    }

    private function nextMessage(?Cancellation $cancellation): ?Message
    {
        try {
            while (!$this->closed) {
                while (($frame = $this->codec->decode($this->inbound)) !== null) {
                    if (!$frame->opcode->isControl()) {
                        $message = $this->assembler->add($frame);
                        if ($message !== null) {
                            return $message;
                        }
                        continue;
                    }
                    $this->control($frame);
                    if ($this->closed) {
                        return null;
                    }
                }
                $this->readSome(null, $cancellation);
            }
        } catch (ProtocolViolation $violation) {
            $this->refuse($violation);
        }

        return null;
    }

    /** @throws ProtocolViolation */
    private function control(Frame $frame): void
    {
        switch ($frame->opcode) {
            case Opcode::Ping:
                if (!$this->closeSent) {
                    $this->enqueue(FrameCodec::encode(Opcode::Pong, $frame->payload));
                }
                break;
            case Opcode::Close:
                $code = CloseCode::parse($frame->payload);
                if (!$this->closeSent) {
                    $this->closeSent = true;
                    $this->enqueue(FrameCodec::encode(Opcode::Close, $code === 1005 ? '' : CloseCode::payload($code)));
                }
                $this->end($code);
                break;
            default:
                break; // a pong: nothing to do
        }
    }

    /** Reads what the socket has (waiting for it); the connection ends when the client is gone. */
    private function readSome(?float $timeout, ?Cancellation $cancellation = null): void
    {
        while (!$this->closed) {
            $data = @\fread($this->socket, 65536);
            if ($data === false || ($data === '' && \feof($this->socket))) {
                $this->end(1006);

                return;
            }
            if ($data !== '') {
                $this->inbound .= $data;

                return;
            }
            try {
                $this->watcher->awaitReadable($timeout, $cancellation);
            } catch (StreamClosedException) {
                $this->end(1006); // the server closed the connection (a forced stop)
            }
        }
    }

    /**
     * Closes with the violation's code. What the client sent after the violation is read and
     * dropped until it closes (or the close timeout): closing a socket with unread bytes sends
     * a reset, which can reach the client before the close frame and hide the code from it.
     */
    private function refuse(ProtocolViolation $violation): void
    {
        if (!$this->closeSent) {
            $this->closeSent = true;
            $this->enqueue(FrameCodec::encode(Opcode::Close, CloseCode::payload($violation->closeCode, $violation->getMessage())));
        }
        if (!$this->closed && \is_resource($this->socket)) {
            $this->closeCode = $violation->closeCode;
            \stream_socket_shutdown($this->socket, \STREAM_SHUT_WR);
            $deadline = \microtime(true) + $this->options->closeTimeout;
            try {
                while (!$this->closed) {
                    $this->inbound = '';
                    $this->readSome(\max(0.001, $deadline - \microtime(true)));
                }
            } catch (TimeoutException) {
                // The client never closed: the socket closes now regardless.
            }
        }
        $this->end($violation->closeCode);
    }

    private function sendFrame(Opcode $opcode, string $payload): void
    {
        if ($this->closeSent || $this->closed) {
            throw new WebSocketClosedException('the WebSocket is ' . ($this->closed ? 'closed' : 'closing'));
        }
        if ($this->deflate !== null && \strlen($payload) >= PerMessageDeflate::COMPRESS_FROM_BYTES && !$opcode->isControl()) {
            $compressed = $this->deflate->compress($payload);
            if (\strlen($compressed) < \strlen($payload)) { // random or already compressed data goes as it is
                $this->enqueue(FrameCodec::encode($opcode, $compressed, true));

                return;
            }
        }
        $this->enqueue(FrameCodec::encode($opcode, $payload));
    }

    private function enqueue(string $bytes): void
    {
        if ($this->closed) {
            return;
        }
        $this->outbound .= $bytes;
        if (!$this->flushing) {
            $this->flush();

            return;
        }
        // Another fiber is writing: wait while the queue is over its bound (back-pressure).
        while (\strlen($this->outbound) > $this->options->maxBufferedBytes) { // end() empties it
            $this->drained ??= new DeferredFuture();
            $this->drained->future()->await();
        }
    }

    /** Writes the queue out, waiting for the client to read when the socket is full; frames others queue meanwhile go too. */
    private function flush(): void
    {
        $this->flushing = true;
        try {
            while ($this->outbound !== '' && !$this->closed) {
                $written = @\fwrite($this->socket, $this->outbound);
                if ($written === false) {
                    $this->end(1006);

                    return;
                }
                $this->outbound = \substr($this->outbound, $written);
                if ($this->outbound !== '') {
                    $this->wakeSenders();
                    try {
                        $this->watcher->awaitWritable();
                    } catch (StreamClosedException) {
                        $this->end(1006);
                    }
                }
            }
        } finally {
            $this->flushing = false;
            $this->wakeSenders();
        }
    }

    private function wakeSenders(): void
    {
        $drained = $this->drained;
        if ($drained !== null && \strlen($this->outbound) <= $this->options->maxBufferedBytes) {
            $this->drained = null;
            $drained->complete();
        }
    }

    private function end(int $code): void
    {
        if ($this->closed) {
            return;
        }
        $this->closeCode ??= $code;
        $this->closed = true;
        $this->goneAfter?->cancel();
        $this->goneAfter = null;
        if ($this->outbound !== '' && $code !== 1006) {
            @\fwrite($this->socket, $this->outbound); // the close frame, best effort: the socket closes now (§7.1.1: the server closes first)
        }
        $this->outbound = '';
        $this->wakeSenders();
        // A reader or writer waiting in another fiber wakes on the shut socket and finds it closed.
        if (\is_resource($this->socket)) {
            \stream_socket_shutdown($this->socket, \STREAM_SHUT_RDWR);
        }
    }
}
