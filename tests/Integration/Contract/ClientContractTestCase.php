<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Contract;

use Bobbin\Async\Async;
use Bobbin\Async\Future;
use Bobbin\Tests\Support\Contract\ClientUnderTest;
use PHPUnit\Framework\TestCase;

/**
 * The base of the client contract tests (as tests/Unit/Async/Loop/DriverTestCase is for the loop
 * drivers): each abstract class under this directory states one behaviour every client keeps,
 * and a small subclass per client runs it on that client (tests/Support/Contract/*UnderTest),
 * against the real servers. Each abstract class says which clients it does not apply to and why.
 */
abstract class ClientContractTestCase extends TestCase
{
    /** @var list<ClientUnderTest> */
    private array $clients = [];

    /** The client under test, with a pool of $poolSize connections that waits $acquireTimeout at most. */
    abstract protected function createClient(int $poolSize, float $acquireTimeout): ClientUnderTest;

    protected function client(int $poolSize = 1, float $acquireTimeout = 5.0): ClientUnderTest
    {
        return $this->clients[] = $this->createClient($poolSize, $acquireTimeout);
    }

    protected function tearDown(): void
    {
        foreach ($this->clients as $client) {
            $client->close();
        }
        $this->clients = [];
    }

    protected static function key(): string
    {
        return 'k' . \bin2hex(\random_bytes(6));
    }

    /**
     * Runs $call in a fiber of its own, started now.
     *
     * @return Future<mixed>
     */
    protected static function inFiber(\Closure $call): Future
    {
        return Async::run($call);
    }

    /**
     * Awaits $future and returns what it threw (failing the test when it threw nothing).
     *
     * @param Future<mixed> $future
     */
    protected static function failureOf(Future $future): \Throwable
    {
        try {
            $future->await();
        } catch (\Throwable $e) {
            return $e;
        }
        self::fail('The call must fail');
    }

    /** Seconds $call takes. */
    protected static function timed(\Closure $call): float
    {
        $started = \microtime(true);
        $call();

        return \microtime(true) - $started;
    }
}
