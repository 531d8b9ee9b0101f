<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Observability;

use Bobbin\Tests\Support\Http\RawClient;
use Bobbin\Tests\Support\Process\MasterProcess;
use PHPUnit\Framework\TestCase;

/**
 * The access log: the common log format (or JSON lines) with durations that include time spent
 * queued behind other work in the worker, and the request id, which the response echoes when
 * the client sent none.
 */
final class AccessLogTest extends TestCase
{
    private const APP = __DIR__ . '/../../Support/Http/test-app.php';
    private const COMMON = '~^(\S+) - - \[\d{2}/\w{3}/\d{4}:\d{2}:\d{2}:\d{2} \+0000\] "GET %s HTTP/1\.1" (\d{3}) (\d+) ([\d.]+) (\S+)$~m';

    private ?MasterProcess $master = null;

    protected function tearDown(): void
    {
        $this->master?->stop();
        $this->master = null;
    }

    public function testRequestsQueuedBehindBlockingCodeShowTheTimeTheyWaited(): void
    {
        // --block-threshold=0: nothing interrupts the usleep(), the queue behind it is 300 ms.
        $this->master = $master = MasterProcess::start(self::APP, ['--workers=1', '--job-workers=0', '--access-log', '--block-threshold=0']);
        $keptAlive = new RawClient($master->address);
        $keptAlive->send("GET /?warm HTTP/1.1\r\nHost: a\r\n\r\n");
        self::assertSame(200, $keptAlive->readResponse()['status'] ?? null);

        $blocker = new RawClient($master->address);
        $blocker->send("GET /block?ms=300 HTTP/1.1\r\nHost: a\r\n\r\n");
        \usleep(50_000);
        $fresh = new RawClient($master->address);
        $fresh->send("GET /?fresh HTTP/1.1\r\nHost: a\r\n\r\n");
        $keptAlive->send("GET /?again HTTP/1.1\r\nHost: a\r\n\r\n");
        foreach ([$blocker, $fresh, $keptAlive] as $client) {
            self::assertSame(200, $client->readResponse()['status'] ?? null);
        }

        $fresh = $master->waitForLog(\sprintf(self::COMMON, '/\?fresh'));
        $again = $master->waitForLog(\sprintf(self::COMMON, '/\?again'));
        self::assertGreaterThan(0.2, (float) $fresh[4], 'a first request is timed from its connection\'s accept');
        self::assertGreaterThan(0.2, (float) $again[4], 'a later one from when the loop found its bytes');
        self::assertSame('127.0.0.1', $fresh[1]);
        self::assertNotSame($fresh[5], $again[5], 'each request has its own id');
    }

    public function testJsonLinesCarryTheSameFieldsAndTheClientsOwnIdIsKept(): void
    {
        $this->master = $master = MasterProcess::start(self::APP, ['--workers=1', '--job-workers=0', '--access-log', '--access-log-format=json']);
        $client = new RawClient($master->address);
        $client->send("GET /info?json HTTP/1.1\r\nHost: a\r\nX-Request-Id: trace-abc.123\r\n\r\n");
        $withId = $client->readResponse();
        $client->send("GET /info?none HTTP/1.1\r\nHost: a\r\n\r\n");
        $withoutId = $client->readResponse();

        self::assertSame('trace-abc.123', \json_decode((string) ($withId['body'] ?? ''), true)['request_id'] ?? null);
        self::assertArrayNotHasKey('x-request-id', $withId['headers'] ?? [], 'the client knows its own id');
        $generated = $withoutId['headers']['x-request-id'][0] ?? '';
        self::assertMatchesRegularExpression('/^[0-9a-f]{8}-[0-9a-f]+$/', $generated);
        self::assertSame($generated, \json_decode((string) ($withoutId['body'] ?? ''), true)['request_id'] ?? null);

        $line = $master->waitForLog('~^\{"time".*"target":"/info\?json".*\}$~m')[0];
        $entry = \json_decode($line, true);
        self::assertIsArray($entry);
        self::assertSame(['time', 'remote', 'method', 'target', 'protocol', 'status', 'bytes', 'duration_s', 'request_id'], \array_keys($entry));
        self::assertSame('trace-abc.123', $entry['request_id']);
        self::assertSame(200, $entry['status']);
        $master->waitForLog('~"request_id":"' . \preg_quote($generated, '~') . '"~');
    }
}
