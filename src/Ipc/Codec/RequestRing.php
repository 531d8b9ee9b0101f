<?php

declare(strict_types=1);

namespace Bobbin\Ipc\Codec;

use Bobbin\Ipc\IpcException;

/**
 * The producer's side of the request ring: where the next records go, given our tail and the
 * head the daemon published. Positions are byte counts since the ring was created (they only
 * grow); a position's place in the ring is the position modulo the capacity. The connection
 * keeps the positions (they are what it publishes) and does the memory writes the lone caller
 * makes; this class holds the rules.
 *
 * @internal
 */
final class RequestRing
{
    /** @param int $capacity bytes, at least 16 and 8-aligned (SegmentOffer::checkHeader()) */
    public function __construct(private readonly int $capacity)
    {
    }

    /**
     * The record of $payload under $id (RingRecord's format).
     *
     * @throws IpcException when it is larger than the ring (it could never go in)
     */
    public function record(int $id, string $payload): string
    {
        $length = \strlen($payload);
        $size = ($length + 15) & ~7;
        if ($size > $this->capacity) {
            throw new IpcException(\sprintf('A %d-byte payload does not fit the %d-byte request ring', $length, $this->capacity));
        }

        // Here rather than in RingRecord: one call per request on the lone caller's path, not three.
        // One pack() for header and payload; padding only when the length is not 8-aligned.
        return $size === $length + 8
            ? \pack('VVa*', $length + 4, $id, $payload)
            : \pack('VVa*', $length + 4, $id, $payload) . \substr(RingRecord::PADDING, 0, $size - $length - 8);
    }

    /**
     * Where one record of $size bytes goes right now in one piece: its offset in the ring (the
     * caller writes it there and publishes $tail + $size), or -1 when it must wait or wrap
     * (push() deals with those). For the lone caller: a call that wrote through RingMemory cost
     * that path ~0.1 us per request (docs/IPC.md, "Code").
     *
     * @throws IpcException when $head is ahead of $tail or more than a ring behind it
     */
    public function claim(int $tail, int $head, int $size): int
    {
        $capacity = $this->capacity;
        if ($head > $tail || $tail - $head > $capacity) {
            throw self::outside($head, $tail, $capacity);
        }
        $offset = $tail % $capacity;

        return $offset + $size <= $capacity && $tail + $size - $head <= $capacity ? $offset : -1;
    }

    /**
     * Writes the leading whole records of $records that fit into the free space, each in one
     * piece: where the next one does not fit before the end of the ring, a wrap marker skips to
     * its start. Returns how many bytes of $records went in (0: the ring is full) and moves
     * $tail past them (and past a skip).
     *
     * @param string $records whole records (record()), back to back
     * @param int $tail our tail: what we produced so far (not negative: SegmentOffer::checkHeader())
     * @param int $head the head the daemon published: what it has consumed
     * @throws IpcException when $head is ahead of $tail or more than a ring behind it
     */
    public function push(string $records, int &$tail, int $head, RingMemory $memory): int
    {
        $capacity = $this->capacity;
        if ($head > $tail || $tail - $head > $capacity) {
            throw self::outside($head, $tail, $capacity);
        }
        $position = $tail;
        $free = $capacity - ($position - $head);
        $total = \strlen($records);
        $copied = 0;
        while ($copied < $total) {
            $offset = $position % $capacity;
            $contiguous = \min($free, $capacity - $offset);
            $take = $total - $copied;
            if ($take > $contiguous) {
                // Only whole records: walk them until the next one would not fit.
                $take = 0;
                while ($copied + $take < $total) {
                    $size = RingRecord::sizeOf(self::lengthWord($records, $copied + $take));
                    if ($take + $size > $contiguous) {
                        break;
                    }
                    $take += $size;
                }
            }
            if ($take === 0) {
                $first = RingRecord::sizeOf(self::lengthWord($records, $copied));
                $toEnd = $capacity - $offset;
                if ($toEnd < $first && $free >= $toEnd + $first) {
                    // The next record does not fit before the end: skip to the start.
                    $memory->write($offset, RingRecord::WRAP_MARKER);
                    $position += $toEnd;
                    $free -= $toEnd;
                    continue;
                }
                break; // full: the rest waits until the daemon has consumed more
            }
            $memory->write($offset, $copied === 0 && $take === $total ? $records : \substr($records, $copied, $take));
            $copied += $take;
            $position += $take;
            $free -= $take;
        }
        $tail = $position; // a skip is always followed by the record it made room for

        return $copied;
    }

    private static function outside(int $head, int $tail, int $capacity): IpcException
    {
        return new IpcException(\sprintf('The IPC daemon published a request position outside its ring (head %d, tail %d, capacity %d)', $head, $tail, $capacity));
    }

    /** The little-endian uint32 at $offset (a record's length word). */
    private static function lengthWord(string $records, int $offset): int
    {
        $word = \unpack('V', $records, $offset);
        \assert($word !== false);

        return $word[1];
    }
}
