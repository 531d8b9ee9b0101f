<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Contract\Redis;

use Bobbin\Tests\Integration\Contract\PoolExhaustionContract;
use Bobbin\Tests\Support\Contract\ClientUnderTest;
use Bobbin\Tests\Support\Contract\RedisUnderTest;

/** PoolExhaustionContract on the Redis client. */
final class PoolExhaustionTest extends PoolExhaustionContract
{
    protected function createClient(int $poolSize, float $acquireTimeout): ClientUnderTest
    {
        return new RedisUnderTest($poolSize, $acquireTimeout);
    }
}
