<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Metrics;

use Bobbin\Tests\Support\Http\HttpGet;
use Bobbin\Tests\Support\Process\MasterProcess;
use PHPUnit\Framework\TestCase;

/**
 * /health (the master answers) and /ready (workers serve) on the admin listener, for load
 * balancers and orchestrators (issue 38).
 */
final class HealthAndReadinessTest extends TestCase
{
    private const APP = __DIR__ . '/../../Support/Process/slow-boot-app.php';
    private const TOKEN = 'feed-0123456789abcdef0123456789abcdef';

    private ?MasterProcess $server = null;
    private ?string $tokenFile = null;

    protected function tearDown(): void
    {
        $this->server?->kill();
        if ($this->tokenFile !== null) {
            @\unlink($this->tokenFile);
        }
    }

    public function testHealthAnswersAtOnceAndReadyOnlyOnceTheWorkersAreUp(): void
    {
        $admin = '127.0.0.1:' . self::freePort();
        $this->server = $server = MasterProcess::startExpectingFailure(self::APP, ['--workers=2', '--admin=' . $admin], ['BOBBIN_TEST_BOOT_SECONDS' => '1.5']);
        $health = self::fetchWhenListening($admin, '/health');

        $ready = HttpGet::fetch($admin, '/ready');

        self::assertSame(200, $health['status']);
        self::assertSame("ok\n", $health['body']);
        self::assertSame(503, $ready['status'], 'Ready before any worker booted');
        self::assertStringContainsString('not ready: starting, 0 of 2 workers ready', $ready['body']);
        $server->waitForLog('/Listening on/');
        $ready = HttpGet::fetch($admin, '/ready');
        self::assertSame(200, $ready['status']);
        self::assertSame("ready: 2 of 2 workers\n", $ready['body']);
        self::assertSame('text/plain; charset=utf-8', $ready['headers']['content-type'] ?? null);
        self::assertSame('no-store', $ready['headers']['cache-control'] ?? null);
    }

    public function testReadyTurnsUnavailableWhileTheWorkersDrainAndHealthStaysOk(): void
    {
        $admin = '127.0.0.1:' . self::freePort();
        $this->server = $server = MasterProcess::start(self::APP, ['--workers=1', '--admin=' . $admin]);
        $slow = \stream_socket_client('tcp://' . $server->address);
        self::assertIsResource($slow);
        \fwrite($slow, "GET /slow?ms=3000 HTTP/1.0\r\nHost: test\r\n\r\n");
        \usleep(200_000);

        $server->signal(\SIGTERM);
        \usleep(300_000);

        $ready = HttpGet::fetch($admin, '/ready');
        self::assertSame(503, $ready['status']);
        self::assertStringContainsString('not ready: stopping', $ready['body']);
        self::assertSame(200, HttpGet::fetch($admin, '/health')['status']);
        \fclose($slow);
    }

    public function testHealthAndReadyAnswerWithoutTheTokenTheOtherPathsNeed(): void
    {
        $this->tokenFile = (string) \tempnam(\sys_get_temp_dir(), 'bobbin-admin-token-');
        \file_put_contents($this->tokenFile, self::TOKEN . "\n");
        $this->server = $server = MasterProcess::start(self::APP, ['--workers=1', '--admin=0.0.0.0:0', '--admin-token-file=' . $this->tokenFile]);
        $admin = \str_replace('0.0.0.0:', '127.0.0.1:', $server->waitForLog('/Admin on (\S+):/')[1]);

        self::assertSame(200, HttpGet::fetch($admin, '/health')['status']);
        self::assertSame("ready: 1 of 1 workers\n", HttpGet::fetch($admin, '/ready')['body']);
        self::assertSame(401, HttpGet::fetch($admin, '/status.json')['status']);
        self::assertMatchesRegularExpression('~Admin on \S+: /metrics, /status, /status.json, /health, /ready~', $server->log());
    }

    public function testAPostToHealthIsRefused(): void
    {
        $admin = '127.0.0.1:' . self::freePort();
        $this->server = MasterProcess::start(self::APP, ['--workers=1', '--admin=' . $admin]);
        $socket = \stream_socket_client('tcp://' . $admin);
        self::assertIsResource($socket);
        \fwrite($socket, "POST /health HTTP/1.0\r\nHost: test\r\nContent-Length: 0\r\n\r\n");

        self::assertStringStartsWith('HTTP/1.1 405', (string) \stream_get_contents($socket));
    }

    /** @return array{status: int, headers: array<string, string>, body: string} */
    private static function fetchWhenListening(string $address, string $path): array
    {
        $deadline = \microtime(true) + 10.0;
        while (true) {
            try {
                return HttpGet::fetch($address, $path);
            } catch (\RuntimeException $error) {
                if (\microtime(true) > $deadline) {
                    throw $error;
                }
                \usleep(20_000);
            }
        }
    }

    private static function freePort(): int
    {
        $probe = \stream_socket_server('tcp://127.0.0.1:0');
        self::assertIsResource($probe);
        $name = (string) \stream_socket_get_name($probe, false);
        \fclose($probe);

        return (int) \substr($name, (int) \strrpos($name, ':') + 1);
    }
}
