<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Ipc;

use PHPUnit\Framework\TestCase;

/** A real bobbin-ipcd for every test, on its own socket, stopped after it. */
abstract class DaemonTestCase extends TestCase
{
    protected IpcDaemon $daemon;

    protected function setUp(): void
    {
        $this->daemon = IpcDaemon::start();
    }

    protected function tearDown(): void
    {
        $this->daemon->stop();
    }

    /** @return array<string, array{string}> every channel a client can use */
    public static function channels(): array
    {
        return Channels::all();
    }
}
