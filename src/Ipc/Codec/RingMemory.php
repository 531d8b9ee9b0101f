<?php

declare(strict_types=1);

namespace Bobbin\Ipc\Codec;

/**
 * The bytes of one ring, at offsets from its start: the mapped segment, or a string in a test.
 * The ring classes never touch memory but through this, and check every offset and length
 * before they use one (FFI checks none: a bad one crashes the process).
 *
 * @internal
 */
interface RingMemory
{
    /** @param int<0, max> $length */
    public function read(int $offset, int $length): string;

    public function write(int $offset, string $bytes): void;
}
