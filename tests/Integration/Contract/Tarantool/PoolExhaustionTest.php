<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Contract\Tarantool;

use Bobbin\Tests\Integration\Contract\PoolExhaustionContract;
use Bobbin\Tests\Support\Contract\ClientUnderTest;
use Bobbin\Tests\Support\Contract\TarantoolUnderTest;

/** PoolExhaustionContract on the Tarantool client. */
final class PoolExhaustionTest extends PoolExhaustionContract
{
    protected function createClient(int $poolSize, float $acquireTimeout): ClientUnderTest
    {
        return new TarantoolUnderTest($poolSize, $acquireTimeout);
    }
}
