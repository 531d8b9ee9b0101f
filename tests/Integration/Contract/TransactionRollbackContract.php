<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Contract;

use Bobbin\Tests\Support\Contract\SqlClientUnderTest;

/**
 * An exception thrown inside a transaction callback rolls the transaction back and reaches the
 * caller unchanged (the same object); the pooled connection comes back outside any transaction.
 * Through the pools' public transaction() only (savepoints and COMMIT are the SQL transaction
 * runner's own contract).
 *
 * For the SQL clients (PostgreSQL, MySQL). Not Redis: MULTI/EXEC has no rollback, a callback that
 * throws sends nothing (docs/REDIS.md). Not Tarantool: its transactions are Lua/stream ones
 * with their own tests (tests/Integration/Tarantool/TransactionTest). Not NATS: no transactions.
 */
abstract class TransactionRollbackContract extends ClientContractTestCase
{
    abstract protected function createClient(int $poolSize, float $acquireTimeout): SqlClientUnderTest;

    public function testAnExceptionThrownInsideTheCallbackRollsBackAndReachesTheCallerUnchanged(): void
    {
        $client = $this->client(poolSize: 1);
        \assert($client instanceof SqlClientUnderTest);
        $inside = self::key();
        $thrown = new \DomainException('the application changed its mind');

        $caught = null;
        try {
            $client->transaction(static function (\Closure $write) use ($inside, $thrown): void {
                $write($inside);
                throw $thrown;
            });
        } catch (\DomainException $e) {
            $caught = $e;
        }

        self::assertSame($thrown, $caught, 'The very exception the callback threw reaches the caller');

        self::assertFalse($client->written($inside), 'Rolled back');
        $after = self::key();
        $client->write($after); // on the same connection (a pool of one): no transaction left open
        self::assertTrue($client->written($after), 'The next write commits on its own');
    }

    public function testTheCallbacksResultIsReturnedAndItsWritesCommitted(): void
    {
        $client = $this->client(poolSize: 1);
        \assert($client instanceof SqlClientUnderTest);
        $key = self::key();

        self::assertSame('committed', $client->transaction(static function (\Closure $write) use ($key): string {
            $write($key);

            return 'committed';
        }));
        self::assertTrue($client->written($key));
    }
}
