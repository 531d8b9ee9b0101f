<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Contract\Mysql;

use Bobbin\Tests\Integration\Contract\CancelWhileWaitingForAConnectionContract;
use Bobbin\Tests\Support\Contract\ClientUnderTest;
use Bobbin\Tests\Support\Contract\MysqlUnderTest;

/** CancelWhileWaitingForAConnectionContract on the MySQL client on MariaDB. */
final class CancelWhileWaitingForAConnectionTest extends CancelWhileWaitingForAConnectionContract
{
    protected function createClient(int $poolSize, float $acquireTimeout): ClientUnderTest
    {
        return new MysqlUnderTest($poolSize, $acquireTimeout);
    }
}
