<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Sql;

use Bobbin\Async\Async;
use Bobbin\Async\OutcomeUnknown;
use Bobbin\Async\TimeoutCancellation;
use Bobbin\Async\TimeoutException;

/**
 * The three outcomes of a cancelled write, the same for every SQL client (docs/CLIENTS.md): done
 * (its result), not done (the cancellation, once the server confirmed it), or unknown — never
 * "failed" for a write that commits. The canceller is replaced to hold back the cancel, as a
 * server too busy (or a network too slow) to act on it would. A test class per client uses it.
 */
trait CancellationOutcomeContract
{
    /** A connection of the client under test (closed after the test), with setCanceller() and state(). */
    abstract protected function connectionUnderTest(): object;

    /** An INSERT of $value into $table (one int column) that takes $seconds on the server. */
    abstract protected static function slowInsert(string $table, int $value, float $seconds): string;

    /** A table of one int column, dropped after the test. */
    abstract protected function createTable(string $columns): string;

    public function testAWriteCancelledAndConfirmedByTheServerIsNotDone(): void
    {
        $table = $this->createTable('n int');
        $connection = $this->connectionUnderTest();

        try {
            $connection->query(static::slowInsert($table, 1, 5.0), [], new TimeoutCancellation(0.2));
            self::fail('The statement must be cancelled');
        } catch (TimeoutException) {
            // Not done: the server stopped it before the caller heard back.
        }

        self::assertSame('Idle', $connection->state()->name, 'The caller learns the outcome after the drain');
        self::assertSame(0, (int) $connection->queryValue("SELECT count(*) FROM $table"));
    }

    public function testAWriteThatFinishedBeforeItsCancellationLandedIsReportedDone(): void
    {
        $table = $this->createTable('n int');
        $connection = $this->connectionUnderTest();
        $connection->setCanceller(static function (int $session): void {
            // The cancel arrives too late: the statement has finished by then.
        });

        $result = $connection->query(static::slowInsert($table, 7, 0.5), [], new TimeoutCancellation(0.2));

        self::assertSame(1, $result->affectedRows);
        self::assertSame(7, (int) $connection->queryValue("SELECT n FROM $table"));
    }

    public function testAWriteWhoseCancellationIsNotConfirmedInTimeIsReportedUnknownNotFailed(): void
    {
        $table = $this->createTable('n int');
        $connection = $this->connectionUnderTest();
        $connection->setCanceller(static function (int $session): void {
            Async::delay(5.0); // never confirmed within the settle time
        });
        $started = \microtime(true);

        try {
            // In a fiber: from {main} (blocking mode) a kill may go out before the caller goes on.
            Async::run(static fn () => $connection->query(static::slowInsert($table, 9, 2.0), [], new TimeoutCancellation(0.2)))->await();
            self::fail('The outcome must be unknown');
        } catch (OutcomeUnknown $e) {
            self::assertInstanceOf(TimeoutException::class, $e->getPrevious());
            self::assertStringContainsString('may or may not have taken effect', $e->getMessage());
        }
        self::assertLessThan(1.8, \microtime(true) - $started, 'The caller waits a bounded time');

        // And it was right not to say "failed": the write commits afterwards.
        self::assertSame(9, (int) $connection->queryValue("SELECT n FROM $table"));
    }
}
