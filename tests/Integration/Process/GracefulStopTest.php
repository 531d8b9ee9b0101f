<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Process;

use Bobbin\Tests\Support\Http\RawClient;
use Bobbin\Tests\Support\Process\MasterProcess;
use PHPUnit\Framework\TestCase;

/** SIGTERM/SIGINT to the master: the workers drain, then the master exits 0. */
final class GracefulStopTest extends TestCase
{
    private const APP = __DIR__ . '/../../Support/Process/app.php';

    private ?MasterProcess $master = null;

    protected function tearDown(): void
    {
        $this->master?->kill();
    }

    public function testSigtermLetsSlowRequestsInFlightCompleteThenTheMasterExits0(): void
    {
        $this->master = $master = MasterProcess::start(self::APP, ['--workers=2']);
        $workers = $master->waitForReadyWorkers(static fn (array $pids): bool => \count($pids) === 2);
        $slow = [];
        for ($i = 0; $i < 6; $i++) {
            $slow[$i] = new RawClient($master->address);
            $slow[$i]->send("GET /slow?ms=1500 HTTP/1.1\r\nHost: a\r\n\r\n");
        }
        \usleep(300_000);

        $master->signal(\SIGTERM);

        foreach ($slow as $i => $client) {
            $response = $client->readResponse();
            self::assertSame('slow done', $response['body'] ?? null, "Slow request $i did not complete");
            self::assertSame(['close'], $response['headers']['connection'] ?? null);
        }
        self::assertSame(0, $master->wait(15.0));
        self::assertSame([], MasterProcess::waitUntilExited($workers, 1.0), 'A worker outlived the master');
        self::assertFileDoesNotExist($master->pidFile);
        self::assertFalse(@\stream_socket_client('tcp://' . $master->address, $code, $message, 1.0), 'Still accepting after the stop');
    }

    public function testANewClientDuringTheDrainIsRefusedAtOnceNotQueuedAndResetLater(): void
    {
        $this->master = $master = MasterProcess::start(self::APP, ['--workers=2', '--drain-timeout=10']);
        $master->waitForReadyWorkers(static fn (array $pids): bool => \count($pids) === 2);
        $slow = new RawClient($master->address);
        $slow->send("GET /slow?ms=2000 HTTP/1.1\r\nHost: a\r\n\r\n");
        \usleep(200_000);

        $master->signal(\SIGTERM);
        \usleep(300_000);
        $started = \microtime(true);
        $late = @\stream_socket_client('tcp://' . $master->address, $code, $message, 2.0);

        self::assertFalse($late, 'A connection was accepted by the kernel during the drain (it would be reset later)');
        self::assertStringContainsStringIgnoringCase('refused', $message);
        self::assertLessThan(0.5, \microtime(true) - $started);
        self::assertSame('slow done', $slow->readResponse()['body'] ?? null, 'The request in flight did not complete');
        self::assertSame(0, $master->wait(15.0));
    }

    public function testARequestOnAnIdleKeepAliveConnectionDuringTheDrainIsAnsweredWithConnectionClose(): void
    {
        $this->master = $master = MasterProcess::start(self::APP, ['--workers=2']);
        $master->waitForReadyWorkers(static fn (array $pids): bool => \count($pids) === 2);
        $keepAlive = new RawClient($master->address);
        $keepAlive->send("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
        self::assertSame(200, $keepAlive->readResponse()['status'] ?? null);
        $slow = new RawClient($master->address);
        $slow->send("GET /slow?ms=2000 HTTP/1.1\r\nHost: a\r\n\r\n");
        \usleep(200_000);

        $master->signal(\SIGTERM);
        \usleep(200_000);
        // The client could not know the server is stopping: its request is served, not cut off.
        $keepAlive->send("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
        $response = $keepAlive->readResponse();

        self::assertSame('hello', $response['body'] ?? null);
        self::assertSame(['close'], $response['headers']['connection'] ?? null);
        self::assertTrue($keepAlive->isClosedByServer());
        self::assertSame('slow done', $slow->readResponse()['body'] ?? null);
        self::assertSame(0, $master->wait(15.0));
    }

    public function testASecondSigintClosesWhatIsLeftAtOnce(): void
    {
        $this->master = $master = MasterProcess::start(self::APP, ['--workers=2', '--drain-timeout=30']);
        $master->waitForReadyWorkers(static fn (array $pids): bool => \count($pids) === 2);
        $slow = new RawClient($master->address);
        $slow->send("GET /slow?ms=20000 HTTP/1.1\r\nHost: a\r\n\r\n");
        \usleep(300_000);

        $master->signal(\SIGINT);
        \usleep(300_000);
        $master->signal(\SIGINT);

        self::assertNull($slow->readResponse());
        self::assertSame(0, $master->wait(5.0));
    }
}
