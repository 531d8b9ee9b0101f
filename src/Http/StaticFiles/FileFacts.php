<?php

declare(strict_types=1);

namespace Bobbin\Http\StaticFiles;

/**
 * What a static response is made from: the stat of the file that will be sent (the encoded
 * sibling when one is chosen), its media type and coding.
 *
 * @immutable
 *
 * @internal made by StaticFilesHandler for FileAnswers
 */
final class FileFacts
{
    /**
     * @param ?string $encoding the Content-Encoding of a precompressed sibling (gzip, br), null for the file itself
     * @param bool $varies whether the file has precompressed siblings (the answer then depends on Accept-Encoding)
     */
    public function __construct(
        public readonly int $size,
        public readonly int $modified,
        public readonly int $inode,
        public readonly string $contentType,
        public readonly ?string $encoding = null,
        public readonly bool $varies = false,
    ) {
    }

    /** Strong, from inode, size and modification time: it changes whenever the file is replaced or rewritten. */
    public function etag(): string
    {
        return '"' . \dechex($this->inode) . '-' . \dechex($this->size) . '-' . \dechex($this->modified) . '"';
    }

    public function lastModified(): string
    {
        return \gmdate('D, d M Y H:i:s', $this->modified) . ' GMT';
    }
}
