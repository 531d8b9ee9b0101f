<?php

declare(strict_types=1);

namespace Bobbin\Http\Compression;

use Psr\Http\Message\StreamInterface;

/**
 * A body gzipped as it is read, with zlib's streaming deflate: each read() takes a piece of the
 * inner body and returns what deflate gives for it, so memory stays bounded whatever the size.
 *
 * A body of unknown size (streamed by the application: events, a generator) is flushed after
 * each piece (Z_SYNC_FLUSH): what the application produced reaches the client now, at a small
 * cost in ratio. A body of known size (a file, a large string) is compressed as one stream;
 * read() then reads on until deflate has output, since an empty read means the end to the
 * server's writer.
 *
 * Not seekable; its size is unknown: the response goes out chunked (or until close in HTTP/1.0).
 *
 * @internal made by ResponseCompression
 */
final class GzipStream implements StreamInterface
{
    private const PIECE_BYTES = 65536;

    private \DeflateContext $deflate;
    private string $buffer = '';
    private bool $started = false;
    private bool $finished = false;
    private int $position = 0;

    public function __construct(private readonly StreamInterface $inner, int $level, private readonly bool $flushEachPiece)
    {
        $deflate = \deflate_init(\ZLIB_ENCODING_GZIP, ['level' => $level]);
        if ($deflate === false) {
            throw new \RuntimeException('zlib refused to start a gzip stream');
        }
        $this->deflate = $deflate;
    }

    public function read(int $length): string
    {
        if (!$this->started) {
            $this->started = true;
            if ($this->inner->isSeekable()) {
                $this->inner->rewind(); // as the server's writer would have done with the inner body
            }
        }
        while ($this->buffer === '' && !$this->finished) {
            $piece = $this->inner->eof() ? '' : $this->inner->read(self::PIECE_BYTES);
            if ($piece === '') {
                $this->buffer = (string) \deflate_add($this->deflate, '', \ZLIB_FINISH);
                $this->finished = true;
            } else {
                $this->buffer = (string) \deflate_add($this->deflate, $piece, $this->flushEachPiece ? \ZLIB_SYNC_FLUSH : \ZLIB_NO_FLUSH);
            }
        }
        if (\strlen($this->buffer) <= $length) {
            $out = $this->buffer;
            $this->buffer = '';
        } else {
            $out = \substr($this->buffer, 0, $length);
            $this->buffer = \substr($this->buffer, $length);
        }
        $this->position += \strlen($out);

        return $out;
    }

    public function eof(): bool
    {
        return $this->finished && $this->buffer === '';
    }

    public function getSize(): ?int
    {
        return null;
    }

    public function isSeekable(): bool
    {
        return false;
    }

    public function isReadable(): bool
    {
        return true;
    }

    public function isWritable(): bool
    {
        return false;
    }

    public function tell(): int
    {
        return $this->position;
    }

    public function seek(int $offset, int $whence = \SEEK_SET): void
    {
        throw new \RuntimeException('A gzip stream cannot seek');
    }

    public function rewind(): void
    {
        throw new \RuntimeException('A gzip stream cannot rewind');
    }

    public function write(string $string): int
    {
        throw new \RuntimeException('A gzip stream is read-only');
    }

    public function getContents(): string
    {
        $contents = '';
        while (!$this->eof()) {
            $contents .= $this->read(self::PIECE_BYTES);
        }

        return $contents;
    }

    public function __toString(): string
    {
        return $this->started ? '' : $this->getContents();
    }

    public function close(): void
    {
        $this->inner->close();
        $this->finished = true;
        $this->buffer = '';
    }

    public function detach()
    {
        $this->close();

        return null;
    }

    public function getMetadata(?string $key = null)
    {
        return $key === null ? [] : null;
    }
}
