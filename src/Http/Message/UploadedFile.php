<?php

declare(strict_types=1);

namespace Bobbin\Http\Message;

use Nyholm\Psr7\Stream;
use Psr\Http\Message\StreamInterface;
use Psr\Http\Message\UploadedFileInterface;

/**
 * A file of a multipart request, held in a temporary file the server removes after the
 * request unless the application moved it away (moveTo()).
 */
final class UploadedFile implements UploadedFileInterface
{
    private bool $moved = false;

    public function __construct(
        /** The temporary file, '' when the upload failed ($error is not UPLOAD_ERR_OK). */
        private readonly string $path,
        private readonly ?int $size,
        private readonly int $error,
        private readonly ?string $clientFilename,
        private readonly ?string $clientMediaType,
    ) {
    }

    public function getStream(): StreamInterface
    {
        $this->assertAvailable();

        return Stream::create(\fopen($this->path, 'rb') ?: throw new \RuntimeException('The uploaded file cannot be opened'));
    }

    public function moveTo(string $targetPath): void
    {
        $this->assertAvailable();
        if ($targetPath === '') {
            throw new \InvalidArgumentException('The target path of an uploaded file must not be empty');
        }
        if (!@\rename($this->path, $targetPath)) {
            // Another file system: copy, then remove the temporary file.
            if (!@\copy($this->path, $targetPath)) {
                throw new \RuntimeException(\sprintf('The uploaded file could not be moved to %s: %s', $targetPath, \error_get_last()['message'] ?? 'unknown error'));
            }
            @\unlink($this->path);
        }
        $this->moved = true;
    }

    public function getSize(): ?int
    {
        return $this->size;
    }

    public function getError(): int
    {
        return $this->error;
    }

    public function getClientFilename(): ?string
    {
        return $this->clientFilename;
    }

    public function getClientMediaType(): ?string
    {
        return $this->clientMediaType;
    }

    /** The temporary file ('' for a failed upload): for $_FILES' tmp_name in the legacy mode. */
    public function temporaryPath(): string
    {
        return $this->path;
    }

    private function assertAvailable(): void
    {
        if ($this->error !== \UPLOAD_ERR_OK) {
            throw new \RuntimeException('The upload failed (error ' . $this->error . '): there is no file');
        }
        if ($this->moved) {
            throw new \RuntimeException('The uploaded file was moved already');
        }
    }
}
