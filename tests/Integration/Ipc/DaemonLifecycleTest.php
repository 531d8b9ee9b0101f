<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Ipc;

use Bobbin\Ipc\ShmClient;
use Bobbin\Tests\Support\Ipc\IpcDaemon;
use PHPUnit\Framework\TestCase;

final class DaemonLifecycleTest extends TestCase
{
    public function testSigtermStopsTheDaemonWithExitZeroAndRemovesItsSocketAndSegments(): void
    {
        $daemon = IpcDaemon::start();
        $client = new ShmClient($daemon->socketPath, 8192);
        $client->request('open a segment');
        self::assertFileExists($daemon->socketPath);

        self::assertSame(0, $daemon->stop(\SIGTERM));
        self::assertFileDoesNotExist($daemon->socketPath);
        self::assertSame([], \glob('/dev/shm/bobbin-ipc-*-' . $daemon->pid . '-*') ?: []);
        $client->close();
    }

    public function testADaemonRestartedOnTheSocketOfAKilledOneStartsAndServes(): void
    {
        $first = IpcDaemon::start();
        $socket = $first->socketPath;
        \posix_kill($first->pid, \SIGKILL);
        while ($first->isRunning()) {
            \usleep(5_000);
        }
        self::assertFileExists($socket, 'a killed daemon leaves its socket file');

        $second = IpcDaemon::start([], $socket);
        try {
            $client = new ShmClient($socket, 8192);
            self::assertSame(1, \strlen($client->request('12345678')));
            $client->close();
        } finally {
            self::assertSame(0, $second->stop());
            $first->stop();
        }
    }
}
