<?php

declare(strict_types=1);

namespace Bobbin\Http\Form;

/**
 * One part of a multipart/form-data body: a field, or a file when it has a filename.
 *
 * @internal made by MultipartParser
 */
final readonly class MultipartPart
{
    public function __construct(
        public string $name,
        /** The client's file name (null for a plain field, '' for a file input left empty). */
        public ?string $filename,
        /** The part's Content-Type, null when it has none. */
        public ?string $contentType,
        public string $content,
    ) {
    }

    public function isFile(): bool
    {
        return $this->filename !== null;
    }
}
