<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Contract\Tarantool;

use Bobbin\Tests\Integration\Contract\CancelWhileQueuedOnTheConnectionContract;
use Bobbin\Tests\Support\Contract\ClientUnderTest;
use Bobbin\Tests\Support\Contract\TarantoolUnderTest;

/** CancelWhileQueuedOnTheConnectionContract on the Tarantool client. */
final class CancelWhileQueuedOnTheConnectionTest extends CancelWhileQueuedOnTheConnectionContract
{
    protected function createClient(int $poolSize, float $acquireTimeout): ClientUnderTest
    {
        return new TarantoolUnderTest($poolSize, $acquireTimeout);
    }
}
