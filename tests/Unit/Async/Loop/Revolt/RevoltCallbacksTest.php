<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async\Loop\Revolt;

use Bobbin\Async\Loop\Poller;
use Bobbin\Tests\Unit\Async\Loop\CallbacksContract;
use Revolt\EventLoop\Driver;
use Revolt\EventLoop\Driver\StreamSelectDriver;

/** Revolt's callback contract, on Revolt's own StreamSelectDriver: the semantics Bobbin's driver promises to keep. */
final class RevoltCallbacksTest extends CallbacksContract
{
    protected function createDriver(): Driver
    {
        return new StreamSelectDriver();
    }

    protected static function createPoller(): Poller
    {
        throw new \LogicException('Revolt\'s driver has no Bobbin poller');
    }

    public function testASignalCallbackThatFailsToRegisterLeavesNoCallbackBehind(): void
    {
        self::markTestSkipped('Revolt\'s driver keeps the callback of a signal it could not watch; Bobbin\'s does not');
    }
}
