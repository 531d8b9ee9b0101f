<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Contract\Postgres;

use Bobbin\Tests\Integration\Contract\PoolExhaustionContract;
use Bobbin\Tests\Support\Contract\ClientUnderTest;
use Bobbin\Tests\Support\Contract\PostgresUnderTest;

/** PoolExhaustionContract on the PostgreSQL client. */
final class PoolExhaustionTest extends PoolExhaustionContract
{
    protected function createClient(int $poolSize, float $acquireTimeout): ClientUnderTest
    {
        return new PostgresUnderTest($poolSize, $acquireTimeout);
    }
}
