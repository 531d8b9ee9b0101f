<?php

declare(strict_types=1);

namespace Bobbin\Http\Message;

use Psr\Http\Message\StreamInterface;

/**
 * A PSR-7 stream over a PHP string: readable, writable and seekable, like a `php://memory`
 * stream but without opening a resource. Request and response bodies are usually small and
 * already in memory; a `php://temp` resource per body (what generic implementations open, even
 * for an empty body) costs a stream allocation, a copy, metadata lookups and a destructor for
 * nothing.
 *
 * Writing behaves like a file opened "r+": bytes are overwritten at the position, the string
 * grows past its end, and a write after seeking beyond the end fills the gap with NUL bytes.
 */
final class StringStream implements StreamInterface
{
    /** @var int */
    private $position = 0;
    /** Detached or closed: PSR-7 leaves the stream unusable after either. */
    private bool $detached = false;

    public function __construct(private string $data = '')
    {
    }

    /**
     * The whole content without moving the position; for the server, which writes the body as
     * one string and must not disturb what the application may still read.
     *
     * @throws \RuntimeException when the stream was detached or closed
     */
    public function contents(): string
    {
        $this->assertUsable();

        return $this->data;
    }

    /** Seeks to the start and reads everything, as PSR-7 asks; '' once detached. */
    public function __toString(): string
    {
        if ($this->detached) {
            return '';
        }
        $this->position = \strlen($this->data);

        return $this->data;
    }

    public function close(): void
    {
        $this->detach();
    }

    /** There is no underlying resource to hand out, hence null; the stream is unusable afterwards. */
    public function detach()
    {
        $this->detached = true;
        $this->data = '';
        $this->position = 0;

        return null;
    }

    public function getSize(): ?int
    {
        return $this->detached ? null : \strlen($this->data);
    }

    public function tell(): int
    {
        $this->assertUsable();

        return $this->position;
    }

    public function eof(): bool
    {
        return $this->detached || $this->position >= \strlen($this->data);
    }

    public function isSeekable(): bool
    {
        return !$this->detached;
    }

    public function seek(int $offset, int $whence = \SEEK_SET): void
    {
        $this->assertUsable();
        $position = match ($whence) {
            \SEEK_SET => $offset,
            \SEEK_CUR => $this->position + $offset,
            \SEEK_END => \strlen($this->data) + $offset,
            default => throw new \RuntimeException("Invalid whence value $whence"),
        };
        if ($position < 0) {
            throw new \RuntimeException("Cannot seek to position $position: before the start of the stream");
        }
        $this->position = $position;
    }

    public function rewind(): void
    {
        $this->seek(0);
    }

    public function isWritable(): bool
    {
        return !$this->detached;
    }

    public function write(string $string): int
    {
        $this->assertUsable();
        $length = \strlen($string);
        $size = \strlen($this->data);
        if ($this->position === $size) {
            $this->data .= $string; // the usual case: appending
        } elseif ($this->position > $size) {
            $this->data .= \str_repeat("\0", $this->position - $size) . $string;
        } else {
            $this->data = \substr_replace($this->data, $string, $this->position, $length);
        }
        $this->position += $length;

        return $length;
    }

    public function isReadable(): bool
    {
        return !$this->detached;
    }

    public function read(int $length): string
    {
        $this->assertUsable();
        if ($length < 0) {
            throw new \RuntimeException('Length to read must not be negative');
        }
        if ($length === 0 || $this->position >= \strlen($this->data)) {
            return '';
        }
        $piece = \substr($this->data, $this->position, $length);
        $this->position += \strlen($piece);

        return $piece;
    }

    public function getContents(): string
    {
        $this->assertUsable();
        $size = \strlen($this->data);
        if ($this->position >= $size) {
            return '';
        }
        $rest = $this->position === 0 ? $this->data : \substr($this->data, $this->position);
        $this->position = $size;

        return $rest;
    }

    /**
     * What stream_get_meta_data() reports for a php://memory stream, so code that inspects
     * metadata sees a familiar shape; empty (or null for a key) once detached.
     */
    public function getMetadata(?string $key = null)
    {
        if ($this->detached) {
            return $key === null ? [] : null;
        }
        $metadata = [
            'timed_out' => false,
            'blocked' => true,
            'eof' => $this->eof(),
            'wrapper_type' => 'PHP',
            'stream_type' => 'MEMORY',
            'mode' => 'w+b',
            'unread_bytes' => 0,
            'seekable' => true,
            'uri' => 'php://memory',
        ];

        return $key === null ? $metadata : ($metadata[$key] ?? null);
    }

    /** @throws \RuntimeException */
    private function assertUsable(): void
    {
        if ($this->detached) {
            throw new \RuntimeException('The stream is detached or closed');
        }
    }
}
