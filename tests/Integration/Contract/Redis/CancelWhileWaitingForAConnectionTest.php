<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Contract\Redis;

use Bobbin\Tests\Integration\Contract\CancelWhileWaitingForAConnectionContract;
use Bobbin\Tests\Support\Contract\ClientUnderTest;
use Bobbin\Tests\Support\Contract\RedisUnderTest;

/** CancelWhileWaitingForAConnectionContract on the Redis client. */
final class CancelWhileWaitingForAConnectionTest extends CancelWhileWaitingForAConnectionContract
{
    protected function createClient(int $poolSize, float $acquireTimeout): ClientUnderTest
    {
        return new RedisUnderTest($poolSize, $acquireTimeout);
    }
}
