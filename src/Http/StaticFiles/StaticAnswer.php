<?php

declare(strict_types=1);

namespace Bobbin\Http\StaticFiles;

/**
 * A static response decided (FileAnswers): its status, its headers, and which bytes of the file
 * it carries ($length 0 and $sendsBody false for 304, 416 and HEAD).
 *
 * @immutable
 *
 * @internal FileAnswers' result
 */
final class StaticAnswer
{
    /**
     * @param array<string, string> $headers
     */
    public function __construct(
        public readonly int $status,
        public readonly array $headers,
        public readonly bool $sendsBody,
        public readonly int $offset = 0,
        public readonly int $length = 0,
    ) {
    }
}
