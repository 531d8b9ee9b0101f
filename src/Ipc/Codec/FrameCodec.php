<?php

declare(strict_types=1);

namespace Bobbin\Ipc\Codec;

use Bobbin\Async\ReplySink;
use Bobbin\Ipc\IpcException;

/**
 * The socket wire's frames (docs/IPC.md, "Wire protocol"): a u32 little-endian length word,
 * then that many bytes. A length word with bit 31 set starts a control frame, which only the
 * shared-memory handshake uses and no answer can be.
 *
 * Decoding is the client's reading side of one connection: bytes are appended as they arrive,
 * and whole frames are handed to a ReplySink (Async) numbered 1, 2, 3… in wire order, since the
 * daemon answers a connection's requests strictly in order and the wire carries no id. Buffered
 * bytes are consumed by position, not by cutting the string per frame, so a read of a thousand
 * answers costs linear time.
 *
 * @internal
 */
final class FrameCodec
{
    public const CONTROL_FLAG = 0x80000000;

    /** Received bytes not handed out yet. */
    private string $buffer = '';
    /** Number of the last answer handed out. */
    private int $received = 0;

    public function __construct(private readonly int $maxFrame)
    {
    }

    /** A request frame carrying $payload (SocketConnection::request() writes it out inline). */
    public static function frame(string $payload): string
    {
        return \pack('Va*', \strlen($payload), $payload);
    }

    /** A control frame carrying $body (opcode first). */
    public static function controlFrame(string $body): string
    {
        return \pack('Va*', self::CONTROL_FLAG | \strlen($body), $body);
    }

    /** Whether the answer to request $id is the only one outstanding, and nothing is buffered. */
    public function awaitsOnly(int $id): bool
    {
        return $this->received === $id - 1 && $this->buffer === '';
    }

    /** Whether nothing is buffered (not even part of a frame). */
    public function isEmpty(): bool
    {
        return $this->buffer === '';
    }

    public function append(string $bytes): void
    {
        $this->buffer .= $bytes;
    }

    /**
     * $bytes when they are exactly one whole answer frame and nothing is buffered before them:
     * the answer to the next number, taken without a sink. Anything else (part of a frame,
     * more than one, a frame against the rules) is buffered for deliver() and null returned.
     * For the only request in flight, whose answer usually arrives in one read.
     */
    public function takeSole(string $bytes): ?string
    {
        $length = \strlen($bytes);
        if ($length >= 4 && $this->buffer === '') {
            $header = \unpack('V', $bytes);
            \assert($header !== false);
            if ($header[1] === $length - 4 && $header[1] <= $this->maxFrame) {
                $this->received++;

                return \substr($bytes, 4);
            }
        }
        $this->buffer .= $bytes;

        return null;
    }

    /**
     * Hands every whole frame in the buffer to $sink as answers received()+1, +2… and returns
     * how many; a partial frame (or a partial length word) stays buffered.
     *
     * @param int $sent number of the last request sent: an answer beyond it was asked by nobody
     * @throws IpcException at a control frame, a length over the limit or an answer nobody asked
     *         for; the frames before it have been handed out
     */
    public function deliver(ReplySink $sink, int $sent): int
    {
        $in = $this->buffer;
        $length = \strlen($in);
        $pos = 0;
        $first = $received = $this->received;
        $maxFrame = $this->maxFrame;
        while ($length - $pos >= 4) {
            $header = \unpack('V', $in, $pos);
            \assert($header !== false); // four bytes are there: checked above
            $size = $header[1];
            // A control frame (top bit set) never answers a request; neither does an answer
            // nobody asked for.
            if (($size & 0x80000000) !== 0 || $size > $maxFrame || $received >= $sent) {
                $this->consumed($in, $pos, $received);

                throw new IpcException(\sprintf('The IPC daemon sent an unexpected frame (length word 0x%08x)', $size));
            }
            if ($length - $pos < 4 + $size) {
                break;
            }
            $sink->deliver(++$received, \substr($in, $pos + 4, $size));
            $pos += 4 + $size;
        }
        if ($pos > 0) {
            $this->consumed($in, $pos, $received);
        }

        return $received - $first;
    }

    /** Drops the first $pos bytes of the buffer $in, whose frames were the answers up to $received. */
    private function consumed(string $in, int $pos, int $received): void
    {
        $this->buffer = $pos === \strlen($in) ? '' : \substr($in, $pos);
        $this->received = $received;
    }
}
