<?php

declare(strict_types=1);

namespace Bobbin\Ipc\Codec;

use Bobbin\Async\ReplySink;
use Bobbin\Ipc\IpcException;

/**
 * The consumer's side of the response ring: reads the records between our head and the tail
 * the daemon published, and checks every position and length before memory is read with it.
 * FFI checks nothing: a read past the mapping, or FFI::string() with a negative length, kills
 * the process instead of raising an error (docs/IPC.md). So the rules:
 *
 * - the tail is never behind the head, nor more than one ring ahead of it;
 * - a wrap marker never skips the head past the tail;
 * - a record has a length word of at least 4 (its id) and lies, padding included, between the
 *   head and the tail without crossing the ring's end.
 *
 * The connection keeps the positions (the head is what it publishes) and makes the lone
 * caller's read itself (soleOffset()); this class holds the rules.
 *
 * @internal
 */
final class ResponseRing
{
    /** @param int $capacity bytes, at least 16 and 8-aligned (SegmentOffer::checkHeader()) */
    public function __construct(private readonly int $capacity)
    {
    }

    /**
     * Hands every record between $head and $tail to $sink (by the id in the record) and returns
     * how many; the head is then $tail.
     *
     * @param int $head what we consumed so far (not negative: SegmentOffer::checkHeader())
     * @param int $tail what the daemon published
     * @throws IpcException when a position or record breaks the rules above (the records
     *         before it have been handed out; the ring is not to be read again)
     */
    public function drain(int $head, int $tail, RingMemory $memory, ReplySink $sink): int
    {
        $capacity = $this->capacity;
        if ($tail < $head || $tail - $head > $capacity) {
            throw new IpcException(\sprintf('The IPC daemon published a response position outside its ring (tail %d, head %d, capacity %d)', $tail, $head, $capacity));
        }
        $drained = 0;
        while ($head !== $tail) {
            $offset = $head % $capacity;
            $run = \min($tail - $head, $capacity - $offset);
            \assert($run > 0); // head < tail <= head + capacity: checked above and at wrap markers
            // One read of everything readable up to the tail or the ring's end, parsed in PHP.
            $chunk = $memory->read($offset, $run);
            $pos = 0;
            while ($pos < $run) {
                if ($run - $pos < RingRecord::HEADER_BYTES) {
                    throw new IpcException('The IPC daemon wrote a truncated response record');
                }
                // Length word and id in one 64-bit little-endian read: one array element to
                // build instead of two on the crowd's path.
                $record = \unpack('P', $chunk, $pos);
                \assert($record !== false); // eight bytes are there: checked above
                $size = $record[1] & 0xFFFFFFFF;
                if ($size === RingRecord::WRAP) {
                    $head += $capacity - $offset;
                    if ($head > $tail) { // skipped past the published records
                        throw new IpcException('The IPC daemon wrote a malformed response record');
                    }
                    continue 2;
                }
                if ($size < 4 || $pos + (($size + 11) & ~7) > $run) {
                    throw new IpcException('The IPC daemon wrote a malformed response record');
                }
                $sink->deliver(($record[1] >> 32) & 0xFFFFFFFF, \substr($chunk, $pos + 8, $size - 4));
                $drained++;
                $pos += ($size + 11) & ~7; // RingRecord::sizeOf(), without a call per record
            }
            $head += $run;
        }

        return $drained;
    }

    /**
     * For the only request in flight, whose answer usually is all there is: the offset in the
     * ring where the $tail - $head bytes published could be exactly one record (at least 16
     * bytes, not crossing the ring's end), else -1 (drain() deals with those). The caller reads
     * them there and hands them to takeSole(). Not one call that reads through RingMemory: on
     * this path that cost ~0.1 us per request, and an array of offset and length ~0.15 us
     * (docs/IPC.md, "Code").
     */
    public function soleOffset(int $head, int $tail): int
    {
        $available = $tail - $head;
        $offset = $head % $this->capacity;

        return $available >= 16 && $offset + $available <= $this->capacity ? $offset : -1;
    }

    /**
     * The answer to $id when $bytes, read at soleOffset(), are exactly its record (the head may
     * then move to the tail); else null: another id, a length that does not fill them.
     */
    public function takeSole(string $bytes, int $id): ?string
    {
        $length = \strlen($bytes);
        if ($length < 16) {
            return null;
        }
        $record = \unpack('V2', $bytes);
        \assert($record !== false); // 16 bytes or more
        // A length word under 4 cannot fill 16 bytes or more: no check of its own.
        if ($record[2] !== $id || (($record[1] + 11) & ~7) !== $length) {
            return null;
        }

        return \substr($bytes, 8, $record[1] - 4);
    }
}
