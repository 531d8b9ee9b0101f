<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Contract\Mysql;

use Bobbin\Tests\Integration\Contract\TransactionRollbackContract;
use Bobbin\Tests\Support\Contract\MysqlUnderTest;
use Bobbin\Tests\Support\Contract\SqlClientUnderTest;

/** TransactionRollbackContract on the MySQL client on MariaDB. */
final class TransactionRollbackTest extends TransactionRollbackContract
{
    protected function createClient(int $poolSize, float $acquireTimeout): SqlClientUnderTest
    {
        return new MysqlUnderTest($poolSize, $acquireTimeout);
    }
}
