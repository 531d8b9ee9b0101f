<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Contract\Mysql;

use Bobbin\Tests\Integration\Contract\CancelWhileRunningContract;
use Bobbin\Tests\Support\Contract\ClientUnderTest;
use Bobbin\Tests\Support\Contract\MysqlUnderTest;

/** CancelWhileRunningContract on the MySQL client on MariaDB. */
final class CancelWhileRunningTest extends CancelWhileRunningContract
{
    protected function createClient(int $poolSize, float $acquireTimeout): ClientUnderTest
    {
        return new MysqlUnderTest($poolSize, $acquireTimeout);
    }
}
