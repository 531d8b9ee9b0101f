<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Ipc;

use Bobbin\Ipc\Internal\SharedMemory;
use Bobbin\Ipc\IpcException;
use PHPUnit\Framework\TestCase;

/**
 * Mapping a segment by name: a failure of shm_open or mmap is an IpcException, never a crash, and
 * a mapped segment shows the header the daemon wrote. Segments are made here as files in
 * /dev/shm, which is where glibc's shm_open() looks.
 */
final class SharedMemoryMappingTest extends TestCase
{
    private string $name;

    protected function setUp(): void
    {
        if (!\extension_loaded('ffi') || !\is_dir('/dev/shm')) {
            self::markTestSkipped('needs ext-ffi and /dev/shm');
        }
        $this->name = '/bobbin-mapping-test-' . \getmypid();
    }

    protected function tearDown(): void
    {
        @\unlink('/dev/shm' . $this->name);
    }

    public function testAMappedSegmentShowsTheCapacitiesInItsHeader(): void
    {
        // uint32 words 2 and 3 of the header: the request and response ring capacities.
        \file_put_contents('/dev/shm' . $this->name, \str_pad(\pack('V4', 0, 0, 8192, 16384), 4096 * 3, "\0"));

        $memory = SharedMemory::map($this->name, 4096 * 3);

        self::assertSame(8192, $memory->requestCapacity);
        self::assertSame(16384, $memory->responseCapacity);
        $memory->positions[8] = 42; // the request tail, written through the mapping
        unset($memory);
        self::assertSame(42, \unpack('P', (string) \file_get_contents('/dev/shm' . $this->name), 64)[1]);
    }

    public function testASegmentThatDoesNotExistIsAnIpcException(): void
    {
        $this->expectException(IpcException::class);
        $this->expectExceptionMessage('shm_open(' . $this->name . ') failed');

        SharedMemory::map($this->name, 4096);
    }

    public function testAFailedMmapIsAnIpcExceptionNotACrash(): void
    {
        \file_put_contents('/dev/shm' . $this->name, \str_repeat("\0", 4096));

        // A zero length makes mmap() return MAP_FAILED ((void *) -1, EINVAL): reading the header
        // there would kill the process.
        $this->expectException(IpcException::class);
        $this->expectExceptionMessage('mmap of ' . $this->name . ' (0 bytes) failed');

        SharedMemory::map($this->name, 0);
    }
}
