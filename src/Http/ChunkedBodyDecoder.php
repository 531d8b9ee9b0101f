<?php

declare(strict_types=1);

namespace Bobbin\Http;

/**
 * The chunked transfer coding of a request body (RFC 9112 §7.1), decoded as the bytes arrive:
 * chunk sizes (at most 15 hex digits), extensions (checked for control characters, dropped),
 * data, and trailer fields (checked like header fields, counted against the head's limits,
 * dropped). Pure: it reads from and consumes the parser's buffer.
 *
 * @internal used by RequestParser
 */
final class ChunkedBodyDecoder
{
    /** Control characters forbidden in chunk extensions (HTAB is allowed). */
    private const CTL = "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x7f";
    private const HEX = '0123456789abcdefABCDEF';
    private const MAX_CHUNK_LINE = 4096;

    private const CHUNK_SIZE = 0;
    private const CHUNK_DATA = 1;
    private const CHUNK_DATA_END = 2;
    private const CHUNK_TRAILER = 3;

    private int $chunkState = self::CHUNK_SIZE;
    private int $chunkRemaining = 0;
    private string $body = '';
    private int $trailerBytes = 0;
    private int $trailerCount = 0;

    public function __construct(
        private readonly int $maxBodyBytes,
        private readonly int $maxHeaderBytes,
        private readonly int $maxHeaderCount,
    ) {
    }

    /** Ready for the next chunked body. */
    public function reset(): void
    {
        $this->chunkState = self::CHUNK_SIZE;
        $this->body = '';
        $this->trailerBytes = $this->trailerCount = 0;
    }

    /**
     * The whole body once its last chunk and trailers have arrived, or null if more bytes are
     * needed; consumes what it decodes from $buffer.
     *
     * @throws ProtocolException
     */
    public function decode(string &$buffer): ?string
    {
        while (true) {
            switch ($this->chunkState) {
                case self::CHUNK_SIZE:
                    $line = $this->takeLine($buffer, self::MAX_CHUNK_LINE, 400);
                    if ($line === null) {
                        return null;
                    }
                    $semicolon = \strpos($line, ';');
                    // Whitespace is allowed only before an extension's ";" (BWS), never after the size alone.
                    $size = $semicolon === false ? $line : \rtrim(\substr($line, 0, $semicolon), " \t");
                    if ($size === '' || \strspn($size, self::HEX) !== \strlen($size)) {
                        throw new ProtocolException(400, 'Malformed chunk size');
                    }
                    $size = \ltrim($size, '0');
                    if (\strlen($size) > 15) {
                        throw new ProtocolException(400, 'Chunk size overflows');
                    }
                    if ($semicolon !== false && \strcspn($line, self::CTL, $semicolon) !== \strlen($line) - $semicolon) {
                        throw new ProtocolException(400, 'Control character in a chunk extension');
                    }
                    $size = $size === '' ? 0 : (int) \hexdec($size);
                    if ($size === 0) {
                        $this->chunkState = self::CHUNK_TRAILER;
                        break;
                    }
                    if (\strlen($this->body) + $size > $this->maxBodyBytes) {
                        throw new ProtocolException(413, 'Request body too large');
                    }
                    $this->chunkRemaining = $size;
                    $this->chunkState = self::CHUNK_DATA;
                    break;
                case self::CHUNK_DATA:
                    $available = \strlen($buffer);
                    if ($available === 0) {
                        return null;
                    }
                    if ($available <= $this->chunkRemaining) {
                        $this->body .= $buffer;
                        $buffer = '';
                        $this->chunkRemaining -= $available;
                    } else {
                        $this->body .= \substr($buffer, 0, $this->chunkRemaining);
                        $buffer = \substr($buffer, $this->chunkRemaining);
                        $this->chunkRemaining = 0;
                    }
                    if ($this->chunkRemaining > 0) {
                        return null;
                    }
                    $this->chunkState = self::CHUNK_DATA_END;
                    break;
                case self::CHUNK_DATA_END:
                    if (\strlen($buffer) < 2) {
                        if ($buffer !== '' && $buffer !== "\r") {
                            throw new ProtocolException(400, 'Chunk data not followed by CRLF');
                        }

                        return null;
                    }
                    if ($buffer[0] !== "\r" || $buffer[1] !== "\n") {
                        throw new ProtocolException(400, 'Chunk data not followed by CRLF');
                    }
                    $buffer = (string) \substr($buffer, 2);
                    $this->chunkState = self::CHUNK_SIZE;
                    break;
                default:
                    $line = $this->takeLine($buffer, $this->maxHeaderBytes - $this->trailerBytes, 431);
                    if ($line === null) {
                        return null;
                    }
                    if ($line === '') {
                        $body = $this->body;
                        $this->body = '';
                        $this->chunkState = self::CHUNK_SIZE;

                        return $body;
                    }
                    RequestParser::parseField($line);
                    $this->trailerBytes += \strlen($line) + 2;
                    if (++$this->trailerCount > $this->maxHeaderCount) {
                        throw new ProtocolException(431, 'Too many trailer fields');
                    }
            }
        }
    }

    /**
     * Takes one CRLF-terminated line off the buffer, or returns null if it has not arrived.
     *
     * @throws ProtocolException
     */
    private function takeLine(string &$buffer, int $maxLength, int $tooLongStatus): ?string
    {
        $end = \strpos($buffer, "\n");
        if ($end === false) {
            if (\strlen($buffer) > $maxLength) {
                throw new ProtocolException($tooLongStatus, 'Line too long');
            }

            return null;
        }
        if ($end === 0 || $buffer[$end - 1] !== "\r") {
            throw new ProtocolException(400, 'Bare LF');
        }
        if ($end - 1 > $maxLength) {
            throw new ProtocolException($tooLongStatus, 'Line too long');
        }
        $line = \substr($buffer, 0, $end - 1);
        $buffer = (string) \substr($buffer, $end + 1);

        return $line;
    }
}
