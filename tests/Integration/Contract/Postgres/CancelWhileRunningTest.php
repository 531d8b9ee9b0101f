<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Contract\Postgres;

use Bobbin\Tests\Integration\Contract\CancelWhileRunningContract;
use Bobbin\Tests\Support\Contract\ClientUnderTest;
use Bobbin\Tests\Support\Contract\PostgresUnderTest;

/** CancelWhileRunningContract on the PostgreSQL client. */
final class CancelWhileRunningTest extends CancelWhileRunningContract
{
    protected function createClient(int $poolSize, float $acquireTimeout): ClientUnderTest
    {
        return new PostgresUnderTest($poolSize, $acquireTimeout);
    }
}
