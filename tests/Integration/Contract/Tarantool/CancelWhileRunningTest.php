<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Contract\Tarantool;

use Bobbin\Tests\Integration\Contract\CancelWhileRunningContract;
use Bobbin\Tests\Support\Contract\ClientUnderTest;
use Bobbin\Tests\Support\Contract\TarantoolUnderTest;

/** CancelWhileRunningContract on the Tarantool client. */
final class CancelWhileRunningTest extends CancelWhileRunningContract
{
    protected function createClient(int $poolSize, float $acquireTimeout): ClientUnderTest
    {
        return new TarantoolUnderTest($poolSize, $acquireTimeout);
    }
}
