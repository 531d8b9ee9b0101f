<?php

declare(strict_types=1);

namespace Bobbin\Http\WebSocket;

/**
 * RFC 6455 §5 framing, a pure codec over strings: decode() takes the frames a client sent
 * (masked, as §5.1 requires of clients) from the front of a buffer, encode() makes the
 * server's (unmasked). RSV1 marks a compressed message when permessage-deflate was negotiated
 * (RFC 7692 §6: on the first frame of a data message only); every other RSV bit must be 0.
 *
 * @internal
 */
final class FrameCodec
{
    /**
     * @param int $maxPayload the largest frame payload accepted (1009 above it)
     * @param bool $deflate whether permessage-deflate was negotiated (RSV1 allowed)
     */
    public function __construct(private readonly int $maxPayload, private readonly bool $deflate = false)
    {
    }

    /**
     * The next whole frame at the front of $buffer, which loses its bytes; null while the
     * frame is incomplete.
     *
     * @throws ProtocolViolation
     */
    public function decode(string &$buffer): ?Frame
    {
        $available = \strlen($buffer);
        if ($available < 2) {
            return null;
        }
        $first = \ord($buffer[0]);
        $second = \ord($buffer[1]);
        if (($first & 0x70) !== 0 && (($first & 0x70) !== 0x40 || !$this->deflate)) {
            throw new ProtocolViolation(1002, 'a reserved bit is set and no extension was negotiated');
        }
        $opcode = Opcode::tryFrom($first & 0x0F) ?? throw new ProtocolViolation(1002, \sprintf('reserved opcode 0x%X', $first & 0x0F));
        $compressed = ($first & 0x40) !== 0;
        if ($compressed && $opcode !== Opcode::Text && $opcode !== Opcode::Binary) {
            throw new ProtocolViolation(1002, 'RSV1 (compressed) set on a frame that does not begin a message');
        }
        $final = ($first & 0x80) !== 0;
        if (($second & 0x80) === 0) {
            throw new ProtocolViolation(1002, 'a client frame must be masked');
        }
        $length = $second & 0x7F;
        $offset = 2;
        if ($opcode->isControl() && ($length > 125 || !$final)) {
            throw new ProtocolViolation(1002, 'a control frame must be whole and at most 125 bytes');
        }
        if ($length === 126) {
            if ($available < 4) {
                return null;
            }
            $length = (\ord($buffer[2]) << 8) | \ord($buffer[3]);
            $offset = 4;
        } elseif ($length === 127) {
            if ($available < 10) {
                return null;
            }
            if ((\ord($buffer[2]) & 0x80) !== 0) {
                throw new ProtocolViolation(1002, 'the most significant bit of a 64-bit length must be 0');
            }
            $length = (int) (\unpack('J', $buffer, 2) ?: [1 => 0])[1];
            $offset = 10;
        }
        if ($length > $this->maxPayload) {
            throw new ProtocolViolation(1009, \sprintf('a frame of %d bytes is over the limit of %d', $length, $this->maxPayload));
        }
        if ($available < $offset + 4 + $length) {
            return null;
        }
        $mask = \substr($buffer, $offset, 4);
        $payload = \substr($buffer, $offset + 4, $length);
        $buffer = \substr($buffer, $offset + 4 + $length);
        if ($length > 0) {
            $payload ^= \str_repeat($mask, ($length >> 2) + 1);
        }

        return new Frame($opcode, $payload, $final, $compressed);
    }

    /** A server frame (never masked, §5.1), whole; $compressed sets RSV1 (permessage-deflate). */
    public static function encode(Opcode $opcode, string $payload, bool $compressed = false): string
    {
        $length = \strlen($payload);
        $head = \chr(($compressed ? 0xC0 : 0x80) | $opcode->value);
        if ($length < 126) {
            return $head . \chr($length) . $payload;
        }
        if ($length < 65536) {
            return $head . \chr(126) . \pack('n', $length) . $payload;
        }

        return $head . \chr(127) . \pack('J', $length) . $payload;
    }
}
