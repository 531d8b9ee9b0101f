<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Bench;

use Bobbin\Bench\Callgrind;
use PHPUnit\Framework\TestCase;

require_once \dirname(__DIR__, 3) . '/bench/lib/autoload.php';

/** The instruction benches read callgrind's totals and keep its files through one helper. */
final class CallgrindTest extends TestCase
{
    private string $dir = '';

    protected function setUp(): void
    {
        $this->dir = \sys_get_temp_dir() . '/bobbin-callgrind-test-' . \bin2hex(\random_bytes(4));
        \mkdir($this->dir);
    }

    protected function tearDown(): void
    {
        \exec('rm -rf ' . \escapeshellarg($this->dir));
    }

    public function testTheTotalIsTheFilesTotalsLine(): void
    {
        $file = $this->dir . '/callgrind.out';
        \file_put_contents($file, "version: 1\npid: 42\nevents: Ir\nfn=main\n5 100\ntotals: 123456789\n");

        self::assertSame(123456789, Callgrind::total($file));
    }

    public function testAFileWithoutTotalsIsAnErrorNotAZero(): void
    {
        $file = $this->dir . '/callgrind.out';
        \file_put_contents($file, "version: 1\npid: 42\n");

        self::assertNull(Callgrind::total($file));
        $this->expectException(\RuntimeException::class);
        Callgrind::finish($file);
    }

    public function testKeepingMovesTheFileAndThePerfMapOfItsProcess(): void
    {
        $pid = 900000 + \random_int(0, 99999);
        $file = $this->dir . '/callgrind.out';
        \file_put_contents($file, "version: 1\npid: $pid\ntotals: 7\n");
        \file_put_contents("/tmp/perf-$pid.map", "7f00 10 TRACE-1\n");

        self::assertSame(7, Callgrind::finish($file, $this->dir . '/kept', '500'));

        self::assertFileDoesNotExist($file);
        self::assertStringEqualsFile($this->dir . '/kept/callgrind.500', "version: 1\npid: $pid\ntotals: 7\n");
        self::assertStringEqualsFile($this->dir . '/kept/perf.map.500', "7f00 10 TRACE-1\n");
        self::assertFileDoesNotExist("/tmp/perf-$pid.map");
    }

    public function testCountingRunsTheCommandUnderValgrindAndFailsWithItsLog(): void
    {
        if (!\is_executable('/usr/bin/valgrind')) {
            self::markTestSkipped('valgrind is installed by scripts/install-deps');
        }
        $small = Callgrind::count([\PHP_BINARY, '-n', '-r', 'for ($i = 0; $i < 1000; $i++) {}']);
        $large = Callgrind::count([\PHP_BINARY, '-n', '-r', 'for ($i = 0; $i < 100000; $i++) {}']);
        self::assertGreaterThan($small + 100_000, $large);

        $this->expectExceptionMessage('failed under callgrind');
        Callgrind::count([\PHP_BINARY, '-n', '-r', 'exit(3);']);
    }
}
