<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Contract\Postgres;

use Bobbin\Tests\Integration\Contract\CancelWhileQueuedOnTheConnectionContract;
use Bobbin\Tests\Support\Contract\ClientUnderTest;
use Bobbin\Tests\Support\Contract\PostgresUnderTest;

/** CancelWhileQueuedOnTheConnectionContract on the PostgreSQL client. */
final class CancelWhileQueuedOnTheConnectionTest extends CancelWhileQueuedOnTheConnectionContract
{
    protected function createClient(int $poolSize, float $acquireTimeout): ClientUnderTest
    {
        return new PostgresUnderTest($poolSize, $acquireTimeout);
    }
}
