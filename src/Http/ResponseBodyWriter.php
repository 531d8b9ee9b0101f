<?php

declare(strict_types=1);

namespace Bobbin\Http;

use Closure;
use Psr\Http\Message\StreamInterface;
use Psr\Log\LoggerInterface;

/**
 * Puts a FramedResponse on the wire through a write function: the head and a small body in one
 * write (ResponseFramer read it already); a large, unknown-size or unseekable body a piece at a
 * time, each piece written before the next is read (so a slow client never makes the server
 * hold the whole body, and a body produced as it is read, a GeneratorStream, is paced by the
 * client), chunk-framed when chunked, the head first then.
 *
 * A FlushableBody whose producer calls flush() while the writer waits for its next piece gets
 * that piece sent at once with a write that never waits ($writeNow): what the socket does not
 * take is held and goes first in the next write. The held bytes are bounded by one flush's
 * output: while some are held, a flush sends only them, and the producer's later output waits
 * in the body for the writer, which waits for the client as for any piece (the write timeout
 * applies). A client that stops reading never blocks the producer's flush().
 *
 * @internal one per server, used by its connections
 */
final class ResponseBodyWriter
{
    private const PIECE_BYTES = 65536;

    public function __construct(private readonly LoggerInterface $logger)
    {
    }

    /**
     * @param Closure(string): void $write writes all of its bytes or throws WriteFailedException
     * @param (Closure(string): ?string)|null $writeNow writes what the socket takes without
     *        waiting and returns the rest (null: the connection failed); never throws
     * @return bool whether the connection may serve another request
     * @throws WriteFailedException when the client is gone or stopped reading
     */
    public function write(FramedResponse $framed, Closure $write, ?Closure $writeNow = null): bool
    {
        if ($framed->bytes !== null) {
            $write($framed->bytes);

            return $framed->keepAlive;
        }
        $stream = $framed->body;
        \assert($stream !== null);
        $size = $framed->framing === BodyFraming::ContentLength ? $framed->length : null;

        if ($writeNow === null || $size !== null || !$stream instanceof FlushableBody) {
            return $this->stream($framed->head, $stream, $size, $framed->framing === BodyFraming::Chunked, $write) && $framed->keepAlive;
        }
        $held = '';
        $stream->whenFlushed(static function () use ($stream, $framed, $writeNow, &$held): void {
            $held = self::sendFlushed($held, $stream, $framed->framing === BodyFraming::Chunked, $writeNow);
        });
        try {
            // Bytes a flush could not send go first in the writer's next write.
            return $this->stream($framed->head, $stream, null, $framed->framing === BodyFraming::Chunked, static function (string $data) use ($write, &$held): void {
                $data = $held . $data;
                $held = '';
                $write($data);
            }) && $framed->keepAlive;
        } finally {
            $stream->whenFlushed(null);
        }
    }

    /**
     * At the producer's flush() (FlushableBody), in its fiber: what it produced so far, framed,
     * written without waiting. Returns what is still held.
     *
     * @param Closure(string): ?string $writeNow
     */
    private static function sendFlushed(string $held, StreamInterface $stream, bool $chunked, Closure $writeNow): string
    {
        if ($held !== '') {
            $held = $writeNow($held) ?? '';
            if ($held !== '') {
                return $held; // the client has not taken the last flush yet: this output waits in the body
            }
        }
        // The body has output buffered (StreamedBody calls only then): read() returns at once.
        $piece = $stream->read(\PHP_INT_MAX);
        if ($piece === '') {
            return '';
        }

        // A failed connection (null) is the writer's to find at its next write.
        return $writeNow($chunked ? \dechex(\strlen($piece)) . "\r\n" . $piece . "\r\n" : $piece) ?? '';
    }

    /**
     * @param Closure(string): void $write
     * @return bool false when the body did not match its declared length (the connection must close)
     * @throws WriteFailedException
     */
    private function stream(string $pending, StreamInterface $stream, ?int $size, bool $chunked, Closure $write): bool
    {
        if ($stream->isSeekable()) {
            $stream->rewind();
        }
        $remaining = $size ?? \PHP_INT_MAX;
        if ($chunked) {
            // A body of unknown size is often produced as it goes (events, a generator): the
            // client gets the head now, not when the first piece is ready.
            $write($pending);
            $pending = '';
        }
        while ($remaining > 0 && !$stream->eof()) {
            $piece = $stream->read(\min(self::PIECE_BYTES, $remaining));
            if ($piece === '') {
                break; // A stream with nothing to give is done; looping on it would spin.
            }
            $remaining -= \strlen($piece);
            $write($pending . ($chunked ? \dechex(\strlen($piece)) . "\r\n" . $piece . "\r\n" : $piece));
            $pending = '';
        }
        if ($chunked) {
            $write($pending . "0\r\n\r\n");

            return true;
        }
        if ($pending !== '') {
            $write($pending);
        }
        if ($size !== null && $remaining > 0) {
            $this->logger->error('A response body was shorter than its size; closing the connection');

            return false;
        }

        return true;
    }
}
