<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Bench;

use PHPUnit\Framework\TestCase;

/**
 * A short, bounded run of bench/hostile/run.php: slowhttptest's slowloris and slow read with
 * three times more connections than the worker's --max-connections, while a probe opens fresh
 * connections; every probe must be answered, and the worker must live. (The full measurement,
 * 1,000 and 4,000 connections beside nginx, is `php bench/hostile/run.php`, docs/HTTP.md.)
 */
final class HostileTrafficSmokeTest extends TestCase
{
    public function testFreshClientsAreAnsweredWhileSlowClientsHoldThreeTimesTheConnectionLimit(): void
    {
        if (!\is_executable('/usr/bin/slowhttptest')) {
            self::markTestSkipped('slowhttptest is not installed (scripts/install-deps installs it)');
        }
        $root = \dirname(__DIR__, 3);
        $command = [\PHP_BINARY, "$root/bench/hostile/run.php", '--connections=300', '--attacks=slowloris,slowread',
            '--servers=bobbin', '--probe-seconds=3', '--rate=300', '--bobbin-option=--max-connections=100', '--json'];
        $process = \proc_open($command, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        self::assertIsResource($process);
        $output = (string) \stream_get_contents($pipes[1]);
        $errors = (string) \stream_get_contents($pipes[2]);
        self::assertSame(0, \proc_close($process), $errors);
        $rows = \json_decode($output, true, 512, \JSON_THROW_ON_ERROR);

        self::assertCount(2, $rows);
        foreach ($rows as $row) {
            self::assertSame('yes', $row['server_alive'], "The worker died under {$row['attack']}");
            self::assertGreaterThanOrEqual(10, $row['probes']);
            self::assertSame($row['probes'], $row['answered'], "Probes went unanswered under {$row['attack']}: " . \json_encode($row));
            self::assertLessThan(1000, $row['p99_ms'], "Probes waited under {$row['attack']}: " . \json_encode($row));
        }
    }
}
