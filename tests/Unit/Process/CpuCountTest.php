<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Process;

use Bobbin\Process\CpuCount;
use PHPUnit\Framework\TestCase;

final class CpuCountTest extends TestCase
{
    public function testItCountsCpuListsAsTheKernelWritesThem(): void
    {
        self::assertSame(1, CpuCount::countList('0'));
        self::assertSame(4, CpuCount::countList('0-3'));
        self::assertSame(7, CpuCount::countList('0-3,6,8-9'));
        self::assertSame(0, CpuCount::countList('garbage'));
    }

    public function testItDetectsWhatNprocSays(): void
    {
        $nproc = \trim((string) @\shell_exec('nproc 2>/dev/null'));
        if (!\ctype_digit($nproc)) {
            self::markTestSkipped('nproc is not available');
        }

        self::assertSame((int) $nproc, CpuCount::detect());
    }
}
