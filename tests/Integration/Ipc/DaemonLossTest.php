<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Ipc;

use Bobbin\Async\Async;
use Bobbin\Async\Future;
use Bobbin\Async\TimeoutCancellation;
use Bobbin\Ipc\ConnectionLostException;
use Bobbin\Ipc\IpcException;
use Bobbin\Tests\Support\Ipc\ByteFrequency;
use Bobbin\Tests\Support\Ipc\Channels;
use Bobbin\Tests\Support\Ipc\DaemonTestCase;
use Bobbin\Tests\Support\Ipc\IpcDaemon;
use PHPUnit\Framework\Attributes\DataProvider;

final class DaemonLossTest extends DaemonTestCase
{
    private ?IpcDaemon $restarted = null;

    protected function tearDown(): void
    {
        parent::tearDown();
        $this->restarted?->stop();
    }

    #[DataProvider('channels')]
    public function testEveryWaitingFiberGetsConnectionLostWhenTheDaemonIsKilledMidRequest(string $channel): void
    {
        $client = Channels::client($channel, $this->daemon);
        $client->request('warm up');
        // A stopped daemon accepts the requests into its socket or ring but answers none.
        $this->daemon->signal(\SIGSTOP);
        $futures = [];
        for ($i = 0; $i < 20; $i++) {
            $futures[] = Async::run(static fn () => $client->request(\str_repeat('r', 100 + $i)));
        }
        Async::delay(0.05);
        $this->daemon->stop(\SIGKILL);

        $timeout = new TimeoutCancellation(10.0, 'A fiber hung after the daemon died');
        $lost = 0;
        foreach ($futures as $future) {
            try {
                $future->await($timeout);
            } catch (ConnectionLostException $e) {
                self::assertStringContainsString('daemon', $e->getMessage());
                $lost++;
            }
        }
        $timeout->dispose();
        self::assertSame(20, $lost);
    }

    #[DataProvider('channels')]
    public function testABlockingCallerGetsConnectionLostInsteadOfHanging(string $channel): void
    {
        $client = Channels::client($channel, $this->daemon);
        $client->request('warm up');
        $this->daemon->signal(\SIGSTOP);
        $pid = $this->daemon->pid;
        // Outside any fiber the request runs the loop itself; the kill happens meanwhile.
        Async::run(static function () use ($pid): void {
            Async::delay(0.1);
            \posix_kill($pid, \SIGKILL);
        });
        $this->expectException(ConnectionLostException::class);
        $client->request('never answered');
    }

    #[DataProvider('channels')]
    public function testTheNextRequestReconnectsToARestartedDaemon(string $channel): void
    {
        $client = Channels::client($channel, $this->daemon);
        self::assertSame(ByteFrequency::expected('before'), $client->request('before'));
        $socket = $this->daemon->socketPath;
        $port = $this->daemon->tcpPort;
        $this->daemon->stop(\SIGKILL);

        try {
            $client->request('while down');
            self::fail('A request to a dead daemon succeeded');
        } catch (IpcException $e) {
            self::assertNotSame('', $e->getMessage());
        }

        $this->restarted = IpcDaemon::start(["--tcp=127.0.0.1:$port"], $socket);
        self::assertSame(ByteFrequency::expected('after restart'), $client->request('after restart'));
        $client->close();
    }

    public function testAnUnreachableDaemonIsAClearError(): void
    {
        $client = Channels::client('unix', $this->daemon);
        $this->daemon->stop();
        $this->expectException(IpcException::class);
        $this->expectExceptionMessageMatches('/Cannot connect to the IPC daemon/');
        $client->request('hello');
    }
}
