<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Contract\Tarantool;

use Bobbin\Tests\Integration\Contract\CancelWhileQueuedOnTheConnectionContract;
use Bobbin\Tests\Support\Contract\ClientUnderTest;
use Bobbin\Tests\Support\Contract\TarantoolUnderTest;

/**
 * CancelWhileQueuedOnTheConnectionContract on one Tarantool Connection that the fibers share: a
 * request made behind another waits in the connection's outbox until the end of the tick.
 */
final class CancelWhileQueuedOnTheSharedConnectionTest extends CancelWhileQueuedOnTheConnectionContract
{
    protected function createClient(int $poolSize, float $acquireTimeout): ClientUnderTest
    {
        return TarantoolUnderTest::shared();
    }
}
