<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Ipc;

use Bobbin\Ipc\Internal\SharedMemory;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/** The shared-memory ring is only offered where the processor keeps stores in order. */
final class SharedMemoryMachineTest extends TestCase
{
    /** @return array<string, array{string, bool}> */
    public static function machines(): array
    {
        return [
            'x86_64 (Linux)' => ['x86_64', true],
            'amd64 (BSD)' => ['amd64', true],
            'AMD64 (Windows)' => ['AMD64', true],
            'arm64' => ['aarch64', false],
            'ppc64le' => ['ppc64le', false],
            'riscv64' => ['riscv64', false],
            '32-bit x86' => ['i686', false],
        ];
    }

    #[DataProvider('machines')]
    public function testTheRingIsOfferedOnlyOnProcessorsThatKeepStoresInOrder(string $machine, bool $offered): void
    {
        self::assertSame($offered, SharedMemory::keepsStoreOrder($machine));
    }
}
