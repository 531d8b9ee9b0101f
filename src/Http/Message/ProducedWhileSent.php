<?php

declare(strict_types=1);

namespace Bobbin\Http\Message;

/**
 * The PSR-7 methods every body produced while it is sent shares (GeneratorStream, a framework's
 * streamed callback, a legacy script's flushed output): read forward once, of no known size,
 * neither seekable nor writable, no metadata; detach() is close(); getContents() reads to the end.
 * The class says what it reads and when it ends (read(), eof(), close(), tell(), __toString()).
 *
 * @internal
 */
trait ProducedWhileSent
{
    public function detach()
    {
        $this->close();

        return null;
    }

    public function getSize(): ?int
    {
        return null;
    }

    public function isSeekable(): bool
    {
        return false;
    }

    public function seek(int $offset, int $whence = \SEEK_SET): void
    {
        throw new \RuntimeException('A body produced while it is sent cannot seek');
    }

    public function rewind(): void
    {
        throw new \RuntimeException('A body produced while it is sent cannot rewind');
    }

    public function isWritable(): bool
    {
        return false;
    }

    public function write(string $string): int
    {
        throw new \RuntimeException('A body produced while it is sent is read-only');
    }

    public function isReadable(): bool
    {
        return true;
    }

    public function getContents(): string
    {
        $contents = '';
        while (($piece = $this->read(65536)) !== '') {
            $contents .= $piece;
        }

        return $contents;
    }

    public function getMetadata(?string $key = null): mixed
    {
        return $key === null ? [] : null;
    }
}
