<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Contract\Mysql;

use Bobbin\Tests\Integration\Contract\PoolExhaustionContract;
use Bobbin\Tests\Support\Contract\ClientUnderTest;
use Bobbin\Tests\Support\Contract\MysqlUnderTest;

/** PoolExhaustionContract on the MySQL client on MariaDB. */
final class PoolExhaustionTest extends PoolExhaustionContract
{
    protected function createClient(int $poolSize, float $acquireTimeout): ClientUnderTest
    {
        return new MysqlUnderTest($poolSize, $acquireTimeout);
    }
}
