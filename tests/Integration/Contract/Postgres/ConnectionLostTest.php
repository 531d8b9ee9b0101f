<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Contract\Postgres;

use Bobbin\Tests\Integration\Contract\ConnectionLostContract;
use Bobbin\Tests\Support\Contract\ClientUnderTest;
use Bobbin\Tests\Support\Contract\PostgresUnderTest;

/** ConnectionLostContract on the PostgreSQL client. */
final class ConnectionLostTest extends ConnectionLostContract
{
    protected function createClient(int $poolSize, float $acquireTimeout): ClientUnderTest
    {
        return new PostgresUnderTest($poolSize, $acquireTimeout);
    }
}
