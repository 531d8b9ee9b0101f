<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\SharedConnect;

use Bobbin\Async\Cancellation;
use Bobbin\Ipc\ShmClient;
use Bobbin\Tests\Support\Ipc\IpcDaemon;

/** An IPC client's connect (the shared-memory one: it waits for the daemon's handshake). */
final class IpcShmClientSharedConnectTest extends SharedConnectContract
{
    private IpcDaemon $daemon;
    private ShmClient $client;
    private string $answer = '';

    protected function setUpServerAndClient(): void
    {
        $this->daemon = IpcDaemon::start();
        $probe = new ShmClient($this->daemon->socketPath, 64 * 1024);
        $this->answer = $probe->request('contract');
        $probe->close();
        $this->client = new ShmClient($this->daemon->socketPath, 64 * 1024);
    }

    protected function freeze(): void
    {
        $this->daemon->signal(\SIGSTOP);
    }

    protected function thaw(): void
    {
        $this->daemon->signal(\SIGCONT);
    }

    protected function ask(?Cancellation $cancellation): mixed
    {
        return $this->client->request('contract', $cancellation);
    }

    protected function expectedAnswer(): mixed
    {
        return $this->answer;
    }

    protected function tearDownServerAndClient(): void
    {
        $this->client->close();
        $this->daemon->stop();
    }
}
