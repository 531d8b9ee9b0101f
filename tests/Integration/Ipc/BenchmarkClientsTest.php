<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Ipc;

use Bobbin\Tests\Support\Ipc\DaemonTestCase;
use PHPUnit\Framework\Attributes\DataProvider;

/**
 * bench/ipc's PHP clients run every channel and reconnect pattern against the real daemon and
 * check every answer's length: a broken client fails here rather than in a benchmark run. The
 * shared-memory runs send enough requests to wrap both rings; client and daemon share CPU 0 so
 * that those take a fraction of a second (a wake-up across vCPUs costs ~75 us a request).
 */
final class BenchmarkClientsTest extends DaemonTestCase
{
    /** @return array<string, array{string, string, int, int, list<string>}> */
    public static function workloads(): array
    {
        $cases = [];
        foreach (['tcp', 'unix', 'shm'] as $channel) {
            foreach ([0 => 'never', 3 => 'every 3', 1 => 'every request'] as $every => $name) {
                $requests = $channel === 'shm' && $every === 0 ? 40000 : 30; // 40,000 x 136 B > 4 MiB
                $cases["bare PHP, $channel, reconnect $name"] = ['php-bare.php', $channel, $requests, $every, []];
                $cases["PHP client blocking, $channel, reconnect $name"] = ['php-client.php', $channel, $requests, $every, ['blocking']];
            }
        }
        $cases['PHP client in a fiber, shm'] = ['php-client.php', 'shm', 40000, 0, ['fiber']];
        $cases['PHP client, 50 fibers, unix'] = ['php-client.php', 'unix', 500, 0, ['fibers:50']];

        return $cases;
    }

    /** @param list<string> $mode */
    #[DataProvider('workloads')]
    public function testTheBenchmarkClientAnswersEveryRequestAndPrintsItsRate(string $script, string $channel, int $requests, int $every, array $mode): void
    {
        $this->daemon->pinTo(0);
        $command = [
            'taskset', '-c', '0', \PHP_BINARY, \dirname(__DIR__, 3) . "/bench/ipc/$script",
            $channel, $this->daemon->socketPath, (string) $this->daemon->tcpPort, '128', (string) $requests, (string) $every,
            ...$mode,
            '20', // warm-up requests
        ];
        $output = [];
        \exec(\implode(' ', \array_map('escapeshellarg', $command)) . ' 2>&1', $output, $code);

        self::assertSame(0, $code, \implode("\n", $output));
        self::assertMatchesRegularExpression('/^[1-9][0-9]*(\.[0-9]+)?( |$)/', $output[0] ?? '');
    }
}
