<?php

declare(strict_types=1);

namespace Bobbin\Ipc\Internal;

use Bobbin\Async\OwnsResources;
use Bobbin\Ipc\Codec\RingMemory;
use FFI;
use FFI\CData;

/**
 * One ring of a mapped segment. No bounds checks here: the ring codecs check every offset and
 * length before they ask (FFI would read or write past the mapping without a word).
 *
 * @internal
 */
final class MappedRing implements RingMemory
{
    use OwnsResources;

    /**
     * @param SharedMemory $memory held so the mapping lives as long as this view: a view that
     *        outlived it would read unmapped memory, which kills the process
     * @param CData $start char* to the ring's first byte
     */
    public function __construct(
        private readonly SharedMemory $memory, // @phpstan-ignore property.onlyWritten (held, never read: see above)
        private readonly CData $start,
    ) {
    }

    /** @param int<0, max> $length */
    public function read(int $offset, int $length): string
    {
        return FFI::string($this->start + $offset, $length); // @phpstan-ignore binaryOp.invalid
    }

    public function write(int $offset, string $bytes): void
    {
        FFI::memcpy($this->start + $offset, $bytes, \strlen($bytes)); // @phpstan-ignore binaryOp.invalid
    }
}
