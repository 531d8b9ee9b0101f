<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Contract\Tarantool;

use Bobbin\Tests\Integration\Contract\ConnectionLostContract;
use Bobbin\Tests\Support\Contract\ClientUnderTest;
use Bobbin\Tests\Support\Contract\TarantoolUnderTest;

/** ConnectionLostContract on the Tarantool client. */
final class ConnectionLostTest extends ConnectionLostContract
{
    protected function createClient(int $poolSize, float $acquireTimeout): ClientUnderTest
    {
        return TarantoolUnderTest::private($poolSize, $acquireTimeout);
    }
}
