<?php

declare(strict_types=1);

namespace Bobbin\Process;

use Bobbin\Async\LoopHeartbeat;
use FFI;
use FFI\CData;

/**
 * One shared, anonymous memory page of slots the master maps before it forks, so that every
 * worker can tell it, at no more cost than a store, whether its loop is running code and since
 * when (hrtime, nanoseconds; 0 while the loop waits). The master reads it to see code that holds
 * a worker's loop too long (BlockWatch). x86-64 stores of one aligned 64-bit word are atomic.
 */
final class HeartbeatTable
{
    private const DECLARATIONS = 'intptr_t mmap(void *addr, size_t length, int prot, int flags, int fd, long offset);';
    private const PROT_READ_WRITE = 3;
    private const MAP_SHARED_ANONYMOUS = 0x01 | 0x20;
    private const PAGE = 4096;

    private function __construct(
        /** uint64_t[slots]: a worker's busy-since time, 0 when idle */
        private CData $slots,
        public readonly int $size,
    ) {
    }

    /** Null where FFI or the mapping is not available (no watchdog then). */
    public static function create(int $slots): ?self
    {
        if (!\extension_loaded('ffi') || $slots < 1 || $slots > self::PAGE / 8) {
            return null;
        }
        try {
            $lib = FFI::cdef(self::DECLARATIONS);
            /** @var int $address (declared intptr_t: a pointer cast would read what it points to) */
            $address = $lib->mmap(null, self::PAGE, self::PROT_READ_WRITE, self::MAP_SHARED_ANONYMOUS, -1, 0); // @phpstan-ignore method.notFound
            if ($address === -1 || $address === 0) {
                return null;
            }
            $slots = $lib->cast('uint64_t*', $address);
        } catch (\Throwable) {
            return null;
        }
        if ($slots === null) {
            return null;
        }

        return new self($slots, self::PAGE / 8);
    }

    /** Since when (hrtime ns) the worker in $slot runs code without waiting; 0 when it waits. */
    public function busySince(int $slot): int
    {
        return (int) $this->slots[$slot];
    }

    public function clear(int $slot): void
    {
        $this->slots[$slot] = 0;
    }

    /** The loop heartbeat a worker in $slot installs (Async::setLoopHeartbeat()). */
    public function heartbeat(int $slot): LoopHeartbeat
    {
        $slots = $this->slots;

        return new class ($slots, $slot) implements LoopHeartbeat {
            public function __construct(private CData $slots, private readonly int $slot)
            {
            }

            public function idle(): void
            {
                $this->slots[$this->slot] = 0;
            }

            public function busy(int $since): void
            {
                $this->slots[$this->slot] = $since;
            }
        };
    }
}
