<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Contract\Postgres;

use Bobbin\Tests\Integration\Contract\TransactionRollbackContract;
use Bobbin\Tests\Support\Contract\PostgresUnderTest;
use Bobbin\Tests\Support\Contract\SqlClientUnderTest;

/** TransactionRollbackContract on the PostgreSQL client. */
final class TransactionRollbackTest extends TransactionRollbackContract
{
    protected function createClient(int $poolSize, float $acquireTimeout): SqlClientUnderTest
    {
        return new PostgresUnderTest($poolSize, $acquireTimeout);
    }
}
