<?php

declare(strict_types=1);

namespace Bobbin\Http\Form;

use Psr\Http\Message\UploadedFileInterface;

/**
 * A decoded form body: its fields as PHP builds $_POST, its files as PSR-7's uploaded-files
 * tree, and the temporary files that hold them until the request is over.
 *
 * @internal built by RequestBuilder (applications read getParsedBody() and getUploadedFiles())
 */
final class FormData
{
    /**
     * @param array<array-key, mixed> $fields
     * @param array<array-key, mixed> $files nested arrays of UploadedFileInterface, keyed as the field names say
     * @param list<string> $temporaryFiles
     */
    public function __construct(
        public readonly array $fields,
        public readonly array $files,
        private array $temporaryFiles = [],
    ) {
    }

    /** Removes the temporary files the application did not move away. */
    public function removeTemporaryFiles(): void
    {
        foreach ($this->temporaryFiles as $path) {
            if (\is_file($path)) {
                @\unlink($path);
            }
        }
        $this->temporaryFiles = [];
    }

    /** @return iterable<UploadedFileInterface> every file of the tree */
    public function allFiles(): iterable
    {
        $walk = static function (array $tree) use (&$walk): iterable {
            foreach ($tree as $node) {
                if ($node instanceof UploadedFileInterface) {
                    yield $node;
                } elseif (\is_array($node)) {
                    yield from $walk($node);
                }
            }
        };

        return $walk($this->files);
    }
}
