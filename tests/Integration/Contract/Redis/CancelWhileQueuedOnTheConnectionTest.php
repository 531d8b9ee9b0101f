<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Contract\Redis;

use Bobbin\Tests\Integration\Contract\CancelWhileQueuedOnTheConnectionContract;
use Bobbin\Tests\Support\Contract\ClientUnderTest;
use Bobbin\Tests\Support\Contract\RedisUnderTest;

/** CancelWhileQueuedOnTheConnectionContract on the Redis client. */
final class CancelWhileQueuedOnTheConnectionTest extends CancelWhileQueuedOnTheConnectionContract
{
    protected function createClient(int $poolSize, float $acquireTimeout): ClientUnderTest
    {
        return new RedisUnderTest($poolSize, $acquireTimeout);
    }

    /**
     * A lone command is written at once and its reader reads before it waits: a local Redis has
     * usually answered by then, so the first call would end before the second is queued. A
     * script spinning 50 ms on the shared connection keeps an answer unread meanwhile.
     */
    protected function holdTheConnection(ClientUnderTest $client): void
    {
        \assert($client instanceof RedisUnderTest);
        $client->occupySharedConnection(0.05)->ignore();
    }
}
