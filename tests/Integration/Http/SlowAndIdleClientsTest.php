<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Http;

use Bobbin\Tests\Support\Http\RawClient;
use Bobbin\Tests\Support\Http\ServerProcess;
use PHPUnit\Framework\TestCase;

/**
 * No mix of idle, slow or hostile clients keeps a new client out of a worker: idle and slow
 * connections make room at the connection limit, and clients that send or read below the
 * minimum data rate are dropped long before the full timeouts.
 */
final class SlowAndIdleClientsTest extends TestCase
{
    /** @var list<ServerProcess> */
    private array $servers = [];

    protected function tearDown(): void
    {
        foreach ($this->servers as $server) {
            $server->stop();
        }
        $this->servers = [];
    }

    /** @param list<string> $options */
    private function server(array $options, array $environment = [], ?int $fileLimit = null): ServerProcess
    {
        return $this->servers[] = ServerProcess::start([...$options, '--workers=1'], environment: $environment, fileLimit: $fileLimit);
    }

    /** Sends a GET and returns the seconds until its answer, which must be a 200. */
    private static function timeAFreshRequest(ServerProcess $server, float $timeout = 5.0): float
    {
        $started = \microtime(true);
        $client = new RawClient($server->address, $timeout);
        $client->send("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
        $response = $client->readResponse();
        $client->close();
        self::assertSame(200, $response['status'] ?? null, 'A fresh client was not answered');

        return \microtime(true) - $started;
    }

    public function testIdleKeepAliveConnectionsAtTheLimitMakeRoomForANewClientOldestFirst(): void
    {
        $server = $this->server(['--max-connections=20', '--idle-timeout=60']);
        $idle = [];
        for ($i = 0; $i < 20; $i++) {
            $idle[] = $client = new RawClient($server->address);
            $client->send("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
            self::assertSame(200, $client->readResponse()['status'] ?? null);
            \usleep(2000);
        }

        self::assertLessThan(1.0, self::timeAFreshRequest($server));
        self::assertTrue($idle[0]->awaitClose(2.0), 'The longest-idle connection was not the one closed');
        $idle[19]->send("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
        self::assertSame(200, $idle[19]->readResponse()['status'] ?? null, 'A recently used connection was closed');
        self::assertMatchesRegularExpression('/Connection limit of 20 reached 1 time\(s\) since start: 1 idle keep-alive connection\(s\) closed to make room/', $server->log());
    }

    public function testAtTheLimitWithEveryRequestInHandsOfTheApplicationANewClientWaitsForOne(): void
    {
        $server = $this->server(['--max-connections=2']);
        $busy = [];
        for ($i = 0; $i < 2; $i++) {
            $busy[] = $client = new RawClient($server->address);
            $client->send("GET /slow?ms=1500 HTTP/1.1\r\nHost: a\r\n\r\n");
        }
        \usleep(200000);

        $elapsed = self::timeAFreshRequest($server);

        self::assertGreaterThan(1.0, $elapsed, 'A request being handled was closed to make room');
        foreach ($busy as $client) {
            self::assertSame('slow done', $client->readResponse()['body'] ?? null);
        }
        self::assertStringContainsString('no connection could be closed, so new clients waited', $server->log());
    }

    public function testAClientSendingItsHeadBelowTheMinimumRateIsDroppedLongBeforeTheHeaderTimeout(): void
    {
        $server = $this->server(['--min-data-rate=200', '--data-rate-window=1', '--header-timeout=30']);
        $slow = new RawClient($server->address);
        $slow->send("GET / HTTP/1.1\r\n");
        $started = \microtime(true);
        $dropped = false;
        while (\microtime(true) - $started < 6.0) {
            try {
                $slow->send("X-Slow: 1\r\n");
            } catch (\RuntimeException) {
                $dropped = true;
                break;
            }
            self::assertLessThan(0.5, self::timeAFreshRequest($server), 'A normal client waited behind the slow one');
            if ($slow->awaitClose(0.3)) {
                $dropped = true;
                break;
            }
        }

        self::assertTrue($dropped, 'The slowloris client was still connected after 6 s');
        self::assertLessThan(4.0, \microtime(true) - $started);
        self::assertStringContainsString('sending a request head below the minimum rate', $this->awaitLog($server, 'below the minimum rate'));
    }

    public function testAClientSendingItsBodyBelowTheMinimumRateIsDroppedWith408(): void
    {
        $server = $this->server(['--min-data-rate=200', '--data-rate-window=1', '--body-timeout=30']);
        $slow = new RawClient($server->address);
        $slow->send("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 1000\r\n\r\n");
        $started = \microtime(true);
        while (\microtime(true) - $started < 6.0) {
            $slow->send('0123456789');
            if ($slow->awaitClose(0.3)) {
                break;
            }
        }
        $elapsed = \microtime(true) - $started;

        self::assertSame(408, $slow->readResponse()['status'] ?? null);
        self::assertLessThan(4.0, $elapsed, 'The slow body was not dropped in time');
        self::assertStringContainsString('sending a request body below the minimum rate', $this->awaitLog($server, 'body below'));
        self::assertLessThan(0.5, self::timeAFreshRequest($server));
    }

    public function testAClientThatStopsReadingItsResponseIsDroppedLongBeforeTheWriteTimeout(): void
    {
        $server = $this->server(['--min-data-rate=1000', '--data-rate-window=1', '--write-timeout=60']);
        $reader = new RawClient($server->address);
        $reader->send("GET /big?bytes=200000000 HTTP/1.1\r\nHost: a\r\n\r\n");

        $log = $this->awaitLog($server, 'reading a response below the minimum rate', 6.0);

        self::assertStringContainsString('reading a response below the minimum rate', $log);
        self::assertLessThan(0.5, self::timeAFreshRequest($server));
        $received = 0;
        while (($data = $reader->readSome()) !== null) {
            $received += \strlen($data);
        }
        self::assertLessThan(200000000, $received, 'The whole body went out to a client that did not read');
    }

    public function testSlowClientsAtTheLimitMakeRoomForANewClient(): void
    {
        $server = $this->server(['--max-connections=10', '--min-data-rate=100', '--data-rate-window=30', '--header-timeout=30']);
        $slow = [];
        for ($i = 0; $i < 10; $i++) {
            $slow[] = $client = new RawClient($server->address);
            $client->send("GET / HTTP/1.1\r\nHost: a\r\n");
        }
        \usleep(1200000); // their rate is judged once a second of the window has passed

        self::assertLessThan(1.0, self::timeAFreshRequest($server));
        $closed = \array_values(\array_filter($slow, static fn (RawClient $client): bool => $client->awaitClose(0.1)));
        self::assertCount(1, $closed, 'Not exactly one slow client made room');
        self::assertSame(408, $closed[0]->readResponse()['status'] ?? null);
        self::assertStringContainsString('slow client(s) closed to make room', $server->log());
    }

    public function testWithoutAMinimumRateSlowClientsAreNotClosedForRoom(): void
    {
        $server = $this->server(['--max-connections=3', '--min-data-rate=0', '--header-timeout=2']);
        $slow = [];
        for ($i = 0; $i < 3; $i++) {
            $slow[] = $client = new RawClient($server->address);
            $client->send("GET / HTTP/1.1\r\nHost: a\r\n");
        }
        \usleep(1200000);

        $elapsed = self::timeAFreshRequest($server);

        self::assertGreaterThan(0.5, $elapsed, 'A slow client was closed for room although --min-data-rate=0');
        self::assertSame(408, $slow[0]->readResponse()['status'] ?? null, 'The slow clients were not held until the header timeout');
    }

    public function testRevoltsSelectDriverIsCappedBelowItsCeilingSoManyConnectionsDoNotEndTheProcess(): void
    {
        self::raiseOwnOpenFilesLimit(1300);
        $server = $this->server(['--max-connections=2000', '--idle-timeout=60', '--header-timeout=60'], ['BOBBIN_LOOP_DRIVER' => 'revolt'], 4096);
        $clients = [];
        for ($i = 0; $i < 1100; $i++) {
            $clients[] = @\stream_socket_client('tcp://' . $server->address, $code, $message, 5.0);
        }
        \usleep(500000);

        self::assertLessThan(2.0, self::timeAFreshRequest($server));
        self::assertTrue($server->isRunning());
        self::assertMatchesRegularExpression('/--max-connections lowered from 2000 to \d{3}: the loop driver can watch descriptors below 1024/', $server->log());
        foreach ($clients as $client) {
            if (\is_resource($client)) {
                \fclose($client);
            }
        }
    }

    private function awaitLog(ServerProcess $server, string $needle, float $timeout = 3.0): string
    {
        $deadline = \microtime(true) + $timeout;
        do {
            $log = $server->log();
            if (\str_contains($log, $needle)) {
                return $log;
            }
            \usleep(50000);
        } while (\microtime(true) < $deadline);

        return $log;
    }

    /** This test process must hold its many client sockets too. */
    private static function raiseOwnOpenFilesLimit(int $needed): void
    {
        $limits = \posix_getrlimit();
        $soft = (int) ($limits['soft openfiles'] ?? 0);
        $hard = $limits['hard openfiles'] ?? 0;
        if ($soft >= $needed) {
            return;
        }
        if ($hard !== 'unlimited' && (int) $hard < $needed) {
            self::markTestSkipped(\sprintf('the hard open-files limit (%s) is below the %d this test needs', $hard, $needed));
        }
        self::assertTrue(\posix_setrlimit(\POSIX_RLIMIT_NOFILE, $needed, $hard === 'unlimited' ? -1 : (int) $hard));
    }
}
