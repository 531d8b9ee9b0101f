<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Contract\Redis;

use Bobbin\Tests\Integration\Contract\ConnectionLostContract;
use Bobbin\Tests\Support\Contract\ClientUnderTest;
use Bobbin\Tests\Support\Contract\RedisUnderTest;

/** ConnectionLostContract on the Redis client. */
final class ConnectionLostTest extends ConnectionLostContract
{
    protected function createClient(int $poolSize, float $acquireTimeout): ClientUnderTest
    {
        return new RedisUnderTest($poolSize, $acquireTimeout);
    }
}
