<?php

declare(strict_types=1);

namespace Bobbin\Ipc\Internal;

use Bobbin\Async\OwnsResources;
use Bobbin\Ipc\IpcException;
use FFI;
use FFI\CData;

/**
 * A POSIX shared-memory segment mapped through FFI (libc's shm_open + mmap).
 *
 * @internal
 */
final class SharedMemory
{
    use OwnsResources;

    private const DECLARATIONS = <<<'C'
        int shm_open(const char *name, int oflag, unsigned int mode);
        intptr_t mmap(void *addr, size_t length, int prot, int flags, int fd, long offset);
        int munmap(intptr_t addr, size_t length);
        int close(int fd);
        int sched_yield(void);
        int sched_getcpu(void);
        C;
    /** Indexes into the header viewed as uint64_t[] and uint32_t[] (see bipc_shm_header). */
    public const REQUEST_TAIL = 8;
    public const REQUEST_HEAD = 16;
    public const RESPONSE_TAIL = 24;
    public const RESPONSE_HEAD = 32;
    public const DAEMON_STALLED = 80;
    /** The CPU the daemon last served the ring on (uint32_t index; 0xFFFFFFFF: not yet). */
    public const DAEMON_CPU = 82;
    private const REQUEST_CAPACITY = 2;
    private const RESPONSE_CAPACITY = 3;
    private const O_RDWR = 2;
    private const PROT_READ_WRITE = 3;
    private const MAP_SHARED = 1;
    /** mmap()'s (void *) -1. */
    private const MAP_FAILED = -1;

    private static ?FFI $ffi = null;
    /** php_uname("m"), read once per process. */
    private static ?string $machine = null;
    private bool $unmapped = false;

    /** The header as uint64_t[]: ring positions. */
    public readonly CData $positions;
    /** The header as uint32_t[]: capacities and flags. */
    public readonly CData $words;
    public readonly int $requestCapacity;
    public readonly int $responseCapacity;

    /**
     * @param int $address where the segment is mapped: an integer, because FFI::cast() of a void*
     *        CData to an integer type reads the memory it points to, not the pointer
     */
    private function __construct(
        private readonly FFI $lib,
        private readonly int $address,
        private readonly int $size,
    ) {
        $this->positions = self::cast($lib, 'uint64_t*', $address);
        $this->words = self::cast($lib, 'uint32_t*', $address);
        $this->requestCapacity = (int) $this->words[self::REQUEST_CAPACITY];
        $this->responseCapacity = (int) $this->words[self::RESPONSE_CAPACITY];
    }

    public static function map(string $name, int $size): self
    {
        if (!\extension_loaded('ffi')) {
            throw new IpcException('The shared-memory channel needs ext-ffi');
        }
        $machine = self::$machine ??= \php_uname('m'); // once: a reconnect per request maps again
        if (!self::keepsStoreOrder($machine)) {
            throw new IpcException(\sprintf(
                'The shared-memory channel needs an x86-64 processor (its ring relies on stores becoming visible in program order; FFI has no memory barriers) and this one is %s: use SocketClient over the unix socket instead',
                $machine,
            ));
        }
        try {
            $lib = self::$ffi ??= FFI::cdef(self::DECLARATIONS, 'libc.so.6');
        } catch (\Throwable $e) {
            throw new IpcException('FFI is not usable here (ffi.enable must allow it in this SAPI): ' . $e->getMessage(), 0, $e);
        }
        /** @var int $fd */
        $fd = self::call($lib, 'shm_open', $name, self::O_RDWR, 0);
        if ($fd < 0) {
            throw new IpcException(\sprintf('shm_open(%s) failed', $name));
        }
        /** @var int $address */
        $address = self::call($lib, 'mmap', null, $size, self::PROT_READ_WRITE, self::MAP_SHARED, $fd, 0);
        self::call($lib, 'close', $fd);
        if ($address === self::MAP_FAILED) {
            throw new IpcException(\sprintf('mmap of %s (%d bytes) failed', $name, $size));
        }

        return new self($lib, $address, $size);
    }

    /** The ring that starts $offset bytes into the segment. */
    public function ring(int $offset): MappedRing
    {
        return new MappedRing($this, $this->pointer($offset));
    }

    /** A char pointer $offset bytes into the segment. */
    public function pointer(int $offset): CData
    {
        return self::cast($this->lib, 'char*', $this->address + $offset);
    }

    private static function cast(FFI $lib, string $type, int $address): CData
    {
        return $lib->cast($type, $address) ?? throw new IpcException("FFI could not cast the segment to $type");
    }

    /**
     * Whether PHP's plain stores into the ring are seen by the daemon in program order, as the
     * ring needs (a record before the tail that publishes it): true on x86-64 (total store
     * order); weakly ordered machines (arm64, ppc64le, riscv64) would need barriers FFI lacks.
     */
    public static function keepsStoreOrder(string $machine): bool
    {
        return \in_array(\strtolower($machine), ['x86_64', 'amd64'], true);
    }

    /**
     * Lets another runnable task on this vCPU (the daemon, just woken by our doorbell) run now.
     * Returns at once when there is none; never blocks.
     */
    public function yieldProcessor(): void
    {
        $this->lib->sched_yield(); // @phpstan-ignore method.notFound (declared in DECLARATIONS)
    }

    /** The CPU this process runs on right now (-1 when the kernel cannot tell). */
    public function currentCpu(): int
    {
        return $this->lib->sched_getcpu(); // @phpstan-ignore method.notFound (declared in DECLARATIONS)
    }

    /** Unmapped only here, when nothing can touch the memory any more. */
    public function __destruct()
    {
        if (!$this->unmapped) {
            $this->unmapped = true;
            self::call($this->lib, 'munmap', $this->address, $this->size);
        }
    }

    /** Calls a libc function declared in DECLARATIONS (the analyser cannot see FFI's methods). */
    private static function call(FFI $lib, string $function, mixed ...$args): mixed
    {
        return $lib->$function(...$args);
    }
}
