<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Mysql;

use Bobbin\Async\Async;
use Bobbin\Async\OutcomeUnknown;
use Bobbin\Async\TimeoutCancellation;
use Bobbin\Async\TimeoutException;
use Bobbin\Mysql\ConnectionState;
use Bobbin\Mysql\Exception\OutcomeUnknownException;

/**
 * A cancelled write is reported as what became of it: done (its result), not done (the
 * cancellation, once the server confirmed it), or unknown — never "failed" for a write that
 * commits. The canceller is replaced to hold back the cancel, as a server too busy (or a network
 * too slow) to act on it would.
 */
final class CancellationOutcomeTest extends MysqlTestCase
{
    public function testAWriteCancelledAndConfirmedByTheServerIsNotDone(): void
    {
        $table = $this->createTable('n int');
        $connection = $this->connect();

        try {
            $connection->query("INSERT INTO $table SELECT SLEEP(5) + 1", [], new TimeoutCancellation(0.2));
            self::fail('The statement must be cancelled');
        } catch (TimeoutException) {
            // Not done: the server killed it before the caller heard back.
        }

        self::assertSame(ConnectionState::Idle, $connection->state(), 'The caller learns the outcome after the drain');
        self::assertSame(0, $connection->queryValue("SELECT count(*) FROM $table"));
    }

    public function testAWriteThatFinishedBeforeItsCancellationLandedIsReportedDone(): void
    {
        $table = $this->createTable('n int');
        $connection = $this->connect();
        $connection->setCanceller(static function (int $connectionId): void {
            // The kill arrives too late: the statement has finished by then.
        });

        $result = $connection->query("INSERT INTO $table SELECT SLEEP(0.5) + 7", [], new TimeoutCancellation(0.2));

        self::assertSame(1, $result->affectedRows);
        self::assertSame(7, $connection->queryValue("SELECT n FROM $table"));
    }

    public function testAWriteWhoseCancellationIsNotConfirmedInTimeIsReportedUnknownNotFailed(): void
    {
        $table = $this->createTable('n int');
        $connection = $this->connect();
        $connection->setCanceller(static function (int $connectionId): void {
            Async::delay(5.0); // never sent within the settle time
        });
        $started = \microtime(true);

        try {
            // In a fiber: from {main} (blocking mode) the kill goes out before the caller goes on.
            Async::run(static fn () => $connection->query("INSERT INTO $table SELECT SLEEP(2) + 9", [], new TimeoutCancellation(0.2)))->await();
            self::fail('The outcome must be unknown');
        } catch (OutcomeUnknownException $e) {
            self::assertInstanceOf(OutcomeUnknown::class, $e);
            self::assertInstanceOf(TimeoutException::class, $e->getPrevious());
            self::assertStringContainsString('may or may not have taken effect', $e->getMessage());
        }
        self::assertLessThan(1.8, \microtime(true) - $started, 'The caller waits a bounded time');

        // And it was right not to say "failed": the write commits afterwards.
        self::assertSame(9, $connection->queryValue("SELECT n FROM $table"));
    }
}
