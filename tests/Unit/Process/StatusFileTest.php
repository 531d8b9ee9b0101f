<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Process;

use Bobbin\Process\StatusFile;
use PHPUnit\Framework\TestCase;

final class StatusFileTest extends TestCase
{
    public function testItWritesAtomicallyAndReadsBack(): void
    {
        $path = \sys_get_temp_dir() . '/bobbin-status-test-' . \getmypid() . '.json';
        try {
            self::assertTrue(StatusFile::write($path, ['master' => ['pid' => 1], 'workers' => []]));

            self::assertSame(['master' => ['pid' => 1], 'workers' => []], StatusFile::read($path));
            self::assertSame([], \glob($path . '.*.tmp'));
        } finally {
            @\unlink($path);
        }
        self::assertNull(StatusFile::read($path));
    }

    public function testItDescribesOneLinePerWorker(): void
    {
        $now = 1700000100.0;
        $lines = StatusFile::describe([
            'updated' => $now - 0.5,
            'master' => ['pid' => 10, 'started' => $now - 3700, 'workers' => 2, 'generation' => 3, 'address' => '127.0.0.1:8080'],
            'workers' => [
                ['pid' => 11, 'state' => 'ready', 'started' => $now - 65, 'requests' => 1234, 'inFlight' => 5, 'memory' => 4194304],
                ['pid' => 12, 'state' => 'retiring', 'started' => $now - 5, 'requests' => 0, 'inFlight' => 0, 'memory' => 2048],
            ],
        ], $now);

        self::assertCount(4, $lines);
        self::assertStringContainsString('master pid 10, 1h01m, 2 worker(s) wanted, generation 3, listening on 127.0.0.1:8080', $lines[0]);
        self::assertMatchesRegularExpression('/^\s+11\s+ready\s+1m05s\s+1234\s+5\s+4\.0M$/', $lines[2]);
        self::assertMatchesRegularExpression('/^\s+12\s+retiring\s+5s\s+0\s+0\s+2\.0K$/', $lines[3]);
    }
}
