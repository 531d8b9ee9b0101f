<?php

declare(strict_types=1);

namespace Bobbin\Ipc\Codec;

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
 * @internal
 */
final class ResponseRing
{
    /**
     * @param int $capacity bytes, at least 16 and 8-aligned, and $head not negative: both as
     *        SegmentOffer::checkHeader() checked them
     */
    public function __construct(private readonly int $capacity, private int $head)
    {
    }

    /** Bytes ever consumed from the ring: the head to publish. */
    public function head(): int
    {
        return $this->head;
    }

    /**
     * Hands every record up to $tail to $sink (by the id in the record) and returns how many;
     * the head moves to $tail.
     *
     * @throws IpcException when a position or record breaks the rules above (the records
     *         before it have been handed out; the ring is not to be read again)
     */
    public function drain(int $tail, RingMemory $memory, ResponseSink $sink): int
    {
        $head = $this->head;
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
        $this->head = $head;

        return $drained;
    }

    /**
     * The answer to $id when it is the one and only record between the head and $tail, and does
     * not cross the ring's end; else null, and nothing is consumed (drain() deals with those).
     * For the only request in flight, whose answer usually is all there is.
     */
    public function takeSole(int $tail, RingMemory $memory, int $id): ?string
    {
        $head = $this->head;
        $available = $tail - $head;
        $offset = $head % $this->capacity;
        if ($available < 16 || $offset + $available > $this->capacity) {
            return null;
        }
        $chunk = $memory->read($offset, $available);
        $record = \unpack('V2', $chunk);
        \assert($record !== false); // $available >= 16
        if ($record[2] !== $id || $record[1] < 4 || (($record[1] + 11) & ~7) !== $available) {
            return null;
        }
        $this->head = $head + $available;

        return \substr($chunk, 8, $record[1] - 4);
    }
}
