<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Http;

use Psr\Http\Message\StreamInterface;

/**
 * A read-only body of $length bytes ("abcdefghijklmnopqrstuvwxyz" repeated) produced as it is
 * read, so a test can serve a body far larger than memory and see whether the server buffers it.
 */
final class GeneratedStream implements StreamInterface
{
    private const PATTERN = 'abcdefghijklmnopqrstuvwxyz';
    private int $position = 0;

    /**
     * @param ?int $claimedSize what getSize() says when it is not $length (a stream that lies)
     * @param bool $claimsSeekable isSeekable() says yes (rewinding still fails)
     */
    public function __construct(
        private readonly int $length,
        private readonly bool $sizeKnown,
        private readonly ?int $claimedSize = null,
        private readonly bool $claimsSeekable = false,
    ) {
    }

    public static function expected(int $length): string
    {
        return \substr(\str_repeat(self::PATTERN, \intdiv($length, 26) + 1), 0, $length);
    }

    public function __toString(): string
    {
        $this->position = 0;

        return $this->getContents();
    }

    public function close(): void
    {
    }

    public function detach()
    {
        return null;
    }

    public function getSize(): ?int
    {
        return $this->sizeKnown ? ($this->claimedSize ?? $this->length) : null;
    }

    public function tell(): int
    {
        return $this->position;
    }

    public function eof(): bool
    {
        return $this->position >= $this->length;
    }

    public function isSeekable(): bool
    {
        return $this->claimsSeekable;
    }

    public function seek(int $offset, int $whence = \SEEK_SET): void
    {
        throw new \RuntimeException('Not seekable');
    }

    public function rewind(): void
    {
        throw new \RuntimeException('Not seekable');
    }

    public function isWritable(): bool
    {
        return false;
    }

    public function write(string $string): int
    {
        throw new \RuntimeException('Not writable');
    }

    public function isReadable(): bool
    {
        return true;
    }

    public function read(int $length): string
    {
        $length = \min($length, $this->length - $this->position);
        if ($length <= 0) {
            return '';
        }
        $offset = $this->position % 26;
        $piece = \substr(\str_repeat(self::PATTERN, \intdiv($offset + $length, 26) + 1), $offset, $length);
        $this->position += $length;

        return $piece;
    }

    public function getContents(): string
    {
        return $this->read($this->length - $this->position);
    }

    public function getMetadata(?string $key = null)
    {
        return $key === null ? [] : null;
    }
}
