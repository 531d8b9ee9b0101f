<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Contract\Mysql;

use Bobbin\Tests\Integration\Contract\ConnectionLostContract;
use Bobbin\Tests\Support\Contract\ClientUnderTest;
use Bobbin\Tests\Support\Contract\MysqlUnderTest;

/** ConnectionLostContract on the MySQL client on MariaDB. */
final class ConnectionLostTest extends ConnectionLostContract
{
    protected function createClient(int $poolSize, float $acquireTimeout): ClientUnderTest
    {
        return new MysqlUnderTest($poolSize, $acquireTimeout);
    }
}
