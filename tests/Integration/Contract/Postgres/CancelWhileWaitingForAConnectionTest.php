<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Contract\Postgres;

use Bobbin\Tests\Integration\Contract\CancelWhileWaitingForAConnectionContract;
use Bobbin\Tests\Support\Contract\ClientUnderTest;
use Bobbin\Tests\Support\Contract\PostgresUnderTest;

/** CancelWhileWaitingForAConnectionContract on the PostgreSQL client. */
final class CancelWhileWaitingForAConnectionTest extends CancelWhileWaitingForAConnectionContract
{
    protected function createClient(int $poolSize, float $acquireTimeout): ClientUnderTest
    {
        return new PostgresUnderTest($poolSize, $acquireTimeout);
    }
}
