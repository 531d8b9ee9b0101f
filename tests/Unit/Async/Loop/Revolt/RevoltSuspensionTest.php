<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async\Loop\Revolt;

use Bobbin\Async\Loop\Poller;
use Bobbin\Tests\Unit\Async\Loop\SuspensionContract;
use Revolt\EventLoop\Driver;
use Revolt\EventLoop\Driver\StreamSelectDriver;

/** The suspension, microtask and error contract, on Revolt's own StreamSelectDriver: the semantics Bobbin's driver promises to keep. */
final class RevoltSuspensionTest extends SuspensionContract
{
    protected function createDriver(): Driver
    {
        return new StreamSelectDriver();
    }

    protected static function createPoller(): Poller
    {
        throw new \LogicException('Revolt\'s driver has no Bobbin poller');
    }

    public function testMainIsStillSuspendableAfterADeadlockReport(): void
    {
        self::markTestSkipped('Revolt\'s driver refuses to suspend {main} again after a deadlock report; Bobbin\'s allows it');
    }
}
