<?php

declare(strict_types=1);

namespace Bobbin\Http\StaticFiles;

use Bobbin\Async\OwnsResources;
use Psr\Http\Message\StreamInterface;

/**
 * $length bytes of an open file from $offset, as a PSR-7 body: the server reads it a piece at a
 * time (ResponseBodyWriter; a small one whole, in the head's write), so memory stays bounded
 * however large the file. The handle is closed with the body.
 *
 * @internal made by StaticFilesHandler
 */
final class FileBody implements StreamInterface
{
    use OwnsResources;

    private int $position = 0;

    /** @param resource|null $handle */
    public function __construct(private $handle, private readonly int $offset, private readonly int $length)
    {
        if ($offset > 0 && \is_resource($handle)) {
            \fseek($handle, $offset);
        }
    }

    public function __destruct()
    {
        $this->close();
    }

    public function __toString(): string
    {
        $this->rewind();

        return $this->getContents();
    }

    public function close(): void
    {
        if (\is_resource($this->handle)) {
            \fclose($this->handle);
        }
        $this->handle = null;
    }

    public function detach()
    {
        $handle = $this->handle;
        $this->handle = null;

        return $handle;
    }

    /** @return resource|null the open file, for sendfile() (FileSending) */
    public function handle()
    {
        return $this->handle;
    }

    /** Where in the file the next byte of the body is. */
    public function fileOffset(): int
    {
        return $this->offset + $this->position;
    }

    public function getSize(): int
    {
        return $this->length;
    }

    public function tell(): int
    {
        return $this->position;
    }

    public function eof(): bool
    {
        return $this->position >= $this->length || $this->handle === null;
    }

    public function isSeekable(): bool
    {
        return $this->handle !== null;
    }

    public function seek(int $offset, int $whence = \SEEK_SET): void
    {
        $target = match ($whence) {
            \SEEK_CUR => $this->position + $offset,
            \SEEK_END => $this->length + $offset,
            default => $offset,
        };
        if ($target === $this->position && $this->handle !== null) {
            return; // the handle is there already (only this body reads it): no lseek()
        }
        if ($this->handle === null || $target < 0 || $target > $this->length || \fseek($this->handle, $this->offset + $target) !== 0) {
            throw new \RuntimeException('Cannot seek to ' . $target . ' in a file body');
        }
        $this->position = $target;
    }

    public function rewind(): void
    {
        $this->seek(0);
    }

    public function isWritable(): bool
    {
        return false;
    }

    public function write(string $string): int
    {
        throw new \RuntimeException('A file body is read-only');
    }

    public function isReadable(): bool
    {
        return $this->handle !== null;
    }

    public function read(int $length): string
    {
        $length = \min($length, $this->length - $this->position);
        if ($this->handle === null || $length <= 0) {
            return '';
        }
        $data = \fread($this->handle, $length);
        if ($data === false) {
            throw new \RuntimeException('Reading a static file failed');
        }
        $this->position += \strlen($data);

        return $data;
    }

    public function getContents(): string
    {
        $contents = '';
        while (!$this->eof() && ($piece = $this->read(1048576)) !== '') {
            $contents .= $piece;
        }

        return $contents;
    }

    public function getMetadata(?string $key = null)
    {
        $metadata = $this->handle === null ? [] : \stream_get_meta_data($this->handle);

        return $key === null ? $metadata : ($metadata[$key] ?? null);
    }
}
