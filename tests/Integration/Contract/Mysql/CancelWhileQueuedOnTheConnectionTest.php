<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Contract\Mysql;

use Bobbin\Tests\Integration\Contract\CancelWhileQueuedOnTheConnectionContract;
use Bobbin\Tests\Support\Contract\ClientUnderTest;
use Bobbin\Tests\Support\Contract\MysqlUnderTest;

/** CancelWhileQueuedOnTheConnectionContract on the MySQL client on MariaDB. */
final class CancelWhileQueuedOnTheConnectionTest extends CancelWhileQueuedOnTheConnectionContract
{
    protected function createClient(int $poolSize, float $acquireTimeout): ClientUnderTest
    {
        return new MysqlUnderTest($poolSize, $acquireTimeout);
    }
}
