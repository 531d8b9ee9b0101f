<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Contract\Nats;

use Bobbin\Tests\Integration\Contract\ConnectionLostContract;
use Bobbin\Tests\Support\Contract\ClientUnderTest;
use Bobbin\Tests\Support\Contract\NatsUnderTest;

/** ConnectionLostContract on the NATS client. */
final class ConnectionLostTest extends ConnectionLostContract
{
    protected function createClient(int $poolSize, float $acquireTimeout): ClientUnderTest
    {
        return NatsUnderTest::private();
    }
}
