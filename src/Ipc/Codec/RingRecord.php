<?php

declare(strict_types=1);

namespace Bobbin\Ipc\Codec;

/**
 * One record of the shared-memory rings (docs/IPC.md, "Shared-memory channel"): u32 length
 * word L (4 + payload length), u32 id, the payload, padded to a multiple of 8 bytes. A length
 * word of 0xFFFFFFFF is the wrap marker: the rest of the ring up to its end is skipped. Every
 * position is 8-aligned, so there is always room for a marker before the end.
 *
 * @internal
 */
final class RingRecord
{
    /** Length word and id. */
    public const HEADER_BYTES = 8;
    public const WRAP = 0xFFFFFFFF;
    public const WRAP_MARKER = "\xFF\xFF\xFF\xFF";
    /** The most padding a record takes. */
    public const PADDING = "\x00\x00\x00\x00\x00\x00\x00";

    /** Bytes the record whose length word is $lengthWord takes in the ring, padding included. */
    public static function sizeOf(int $lengthWord): int
    {
        return ($lengthWord + 11) & ~7;
    }
}
