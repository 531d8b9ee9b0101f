<?php

declare(strict_types=1);

namespace Bobbin\Ipc\Codec;

use Bobbin\Ipc\IpcException;

/**
 * A shared-memory segment as the daemon's handshake reply describes it: the header (positions,
 * flags) in its first 4 KiB, then the request ring, then the response ring.
 *
 * @internal
 */
final class SegmentOffer
{
    /** Where the request ring starts; the header lies before it. */
    public const RINGS_OFFSET = 4096;

    public function __construct(
        public readonly int $requestCapacity,
        public readonly int $responseCapacity,
        public readonly int $segmentSize,
        public readonly string $name,
    ) {
    }

    public function responseRingOffset(): int
    {
        return self::RINGS_OFFSET + $this->requestCapacity;
    }

    /**
     * Checks what the mapped segment's own header says against the offer: the same capacities,
     * both rings inside the segment, and the client's positions (request tail, response head)
     * within what a u64 counter reaches (PHP reads 2^63 and more as negative numbers). The ring
     * code trusts all of them from here on, and a read past the mapping would kill the process
     * rather than raise an error.
     *
     * @throws IpcException when they disagree or do not fit
     */
    public function checkHeader(int $requestCapacity, int $responseCapacity, int $requestTail, int $responseHead): void
    {
        if ($requestCapacity !== $this->requestCapacity
            || $responseCapacity !== $this->responseCapacity
            || !self::isRingSize($requestCapacity)
            || !self::isRingSize($responseCapacity)
            || self::RINGS_OFFSET + $requestCapacity + $responseCapacity > $this->segmentSize) {
            throw new IpcException(\sprintf(
                'The shared-memory segment %s does not match the handshake (rings of %d and %d bytes in %d bytes; its header says %d and %d)',
                $this->name,
                $this->requestCapacity,
                $this->responseCapacity,
                $this->segmentSize,
                $requestCapacity,
                $responseCapacity,
            ));
        }
        if ($requestTail < 0 || $responseHead < 0) {
            throw new IpcException(\sprintf('The shared-memory segment %s starts with positions out of range (request tail %d, response head %d)', $this->name, $requestTail, $responseHead));
        }
    }

    /** Room for a record of an empty payload, and 8-aligned as every position is. */
    private static function isRingSize(int $capacity): bool
    {
        return $capacity >= 16 && $capacity % 8 === 0;
    }
}
