<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Aircraft;

use Bobbin\Tests\Support\EmbeddedPostgres;
use Bobbin\Tests\Support\HttpClient;
use Bobbin\Tests\Support\Http\ServerProcess;
use PHPUnit\Framework\TestCase;

/**
 * 10,000 requests through one Bobbin worker — reads, conflicts (an error path) and list pages —
 * must not grow its memory per request.
 */
final class BobbinAircraftSoakTest extends TestCase
{
    private const REQUESTS_PER_KIND = 3_400;
    /** Growth allowed across the soak: caches and allocator slack, not per-request leaks. */
    private const ALLOWED_GROWTH_KB = 3_072;

    public function testTenThousandRequestsOnOneWorkerKeepMemoryBounded(): void
    {
        if (!\is_executable('/usr/bin/ab')) {
            self::markTestSkipped('ab (apache2-utils) is not installed');
        }
        $server = ServerProcess::start(
            ['--workers=1'],
            \dirname(__DIR__, 3) . '/apps/aircraft/server.php',
            ['DATABASE_URL' => EmbeddedPostgres::connectionString(), 'DATABASE_POOL_MAX' => '8'],
        );
        $body = \tempnam(\sys_get_temp_dir(), 'soak-body-');
        try {
            $data = [
                'number' => 'SOAK-' . \bin2hex(\random_bytes(4)),
                'title' => 'Soak', 'serial_number' => '1', 'assembly_date' => '2020-01-01', 'added_at' => '2020-01-02',
            ];
            $created = (new HttpClient('127.0.0.1', $server->port))->json('POST', '/aircraft', $data)->json();
            \file_put_contents($body, \json_encode($data));
            $base = "http://127.0.0.1:{$server->port}";
            $rounds = [
                ['-n', '1000', "$base/aircraft/{$created['id']}"],
                ['-n', (string) self::REQUESTS_PER_KIND, "$base/aircraft/{$created['id']}"],
                ['-n', (string) self::REQUESTS_PER_KIND, '-p', $body, '-T', 'application/json', "$base/aircraft"],
                ['-n', (string) self::REQUESTS_PER_KIND, "$base/aircraft?limit=5"],
            ];

            $this->ab($rounds[0], 200);
            $before = self::residentKb($server->pid);
            $this->ab($rounds[1], 200);
            $this->ab($rounds[2], 409);
            $this->ab($rounds[3], 200);
            $after = self::residentKb($server->pid);

            self::assertTrue($server->isRunning());
            self::assertLessThan(
                self::ALLOWED_GROWTH_KB,
                $after - $before,
                \sprintf('RSS grew from %d KB to %d KB over %d requests', $before, $after, 3 * self::REQUESTS_PER_KIND),
            );
        } finally {
            @\unlink($body);
            self::assertSame(0, $server->stop(), 'graceful stop after the soak');
        }
    }

    /** @param list<string> $arguments */
    private function ab(array $arguments, int $expectedStatus): void
    {
        $command = \array_merge(['ab', '-q', '-k', '-c', '20', '-s', '30'], $arguments);
        \exec(\implode(' ', \array_map('escapeshellarg', $command)) . ' 2>&1', $output, $status);
        $text = \implode("\n", $output);
        self::assertSame(0, $status, $text);
        self::assertMatchesRegularExpression('/Failed requests:\s+0\b/', $text);
        if ($expectedStatus === 200) {
            self::assertDoesNotMatchRegularExpression('/Non-2xx responses/', $text);
        } else {
            \preg_match('/Complete requests:\s+(\d+)/', $text, $complete);
            \preg_match('/Non-2xx responses:\s+(\d+)/', $text, $non2xx);
            self::assertSame($complete[1] ?? 'none', $non2xx[1] ?? 'none', 'every duplicate is a conflict');
        }
    }

    private static function residentKb(int $pid): int
    {
        $status = (string) \file_get_contents("/proc/$pid/status");
        \preg_match('/^VmRSS:\s+(\d+) kB/m', $status, $m);

        return (int) ($m[1] ?? 0);
    }
}
