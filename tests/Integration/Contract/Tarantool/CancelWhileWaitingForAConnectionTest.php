<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Contract\Tarantool;

use Bobbin\Tests\Integration\Contract\CancelWhileWaitingForAConnectionContract;
use Bobbin\Tests\Support\Contract\ClientUnderTest;
use Bobbin\Tests\Support\Contract\TarantoolUnderTest;

/** CancelWhileWaitingForAConnectionContract on the Tarantool client. */
final class CancelWhileWaitingForAConnectionTest extends CancelWhileWaitingForAConnectionContract
{
    protected function createClient(int $poolSize, float $acquireTimeout): ClientUnderTest
    {
        return new TarantoolUnderTest($poolSize, $acquireTimeout);
    }
}
