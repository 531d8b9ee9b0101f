<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Sql;

use Bobbin\Async\Async;
use Bobbin\Async\CancellationSource;
use Bobbin\Sql\ConnectionPool;
use Bobbin\Sql\Result;
use Bobbin\Sql\Transaction;
use PHPUnit\Framework\TestCase;

/**
 * What Bobbin\Sql\Transaction promises on every database, written once and run against each
 * client through the shared types only (as tests/Unit/Async/Loop/DriverTestCase does for the
 * loop drivers): a subclass per database supplies a pool, a table and a way to read what was
 * committed from outside the code under test.
 */
abstract class TransactionContractTestCase extends TestCase
{
    /** @return ConnectionPool<Result, \Bobbin\Sql\Link<Result>> a pool of one connection */
    abstract protected function pool(): ConnectionPool;

    /** Creates a table (id int PRIMARY KEY) dropped after the test; returns its name. */
    abstract protected function createTable(): string;

    /** The database's placeholder for the first parameter ($1 or ?). */
    abstract protected function firstParameter(): string;

    /** The committed ids of $table in order, read by the server's own command-line client. */
    abstract protected function committedIds(string $table): string;

    /** The client's exception for a transaction used wrongly. */
    abstract protected function transactionException(): string;

    /** Makes COMMIT of a transaction that wrote to $table take about half a second, where the server can. */
    abstract protected function slowCommit(string $table): void;

    public function testReturningFromTheCallbackCommitsAndGivesItsValue(): void
    {
        $table = $this->createTable();
        $insert = $this->insert($table);

        $value = $this->pool()->transaction(static function (Transaction $tx) use ($insert): string {
            $tx->execute($insert, [1]);
            $tx->execute($insert, [2]);

            return 'done';
        });

        self::assertSame('done', $value);
        self::assertSame("1\n2", $this->committedIds($table));
    }

    public function testAnExceptionRollsTheTransactionBackAndIsRethrown(): void
    {
        $table = $this->createTable();
        $insert = $this->insert($table);
        $pool = $this->pool();
        $thrown = new \DomainException('the application changed its mind');

        try {
            $pool->transaction(static function (Transaction $tx) use ($insert, $thrown): void {
                $tx->execute($insert, [1]);
                throw $thrown;
            });
            self::fail('The exception must come out of transaction()');
        } catch (\DomainException $e) {
            self::assertSame($thrown, $e);
        }

        self::assertSame('', $this->committedIds($table));
        self::assertSame(1, $pool->queryValue('SELECT 1'), 'the connection is usable again');
    }

    public function testNestedTransactionsAreSavepointsThatRollBackAlone(): void
    {
        $table = $this->createTable();
        $insert = $this->insert($table);

        $this->pool()->transaction(static function (Transaction $tx) use ($insert): void {
            $tx->execute($insert, [1]);
            try {
                $tx->transaction(static function (Transaction $inner) use ($insert): void {
                    $inner->execute($insert, [2]);
                    $inner->transaction(static fn (Transaction $innermost): int => $innermost->execute($insert, [3]));
                    throw new \RuntimeException('undo 2 and 3');
                });
            } catch (\RuntimeException) {
                // The outer transaction goes on.
            }
            $tx->transaction(static fn (Transaction $inner): int => $inner->execute($insert, [4]));
        });

        self::assertSame("1\n4", $this->committedIds($table));
    }

    public function testTheOuterTransactionRefusesStatementsWhileASavepointIsOpen(): void
    {
        $table = $this->createTable();
        $insert = $this->insert($table);

        try {
            $this->pool()->transaction(static function (Transaction $tx) use ($insert): void {
                $tx->transaction(static fn (): int => $tx->execute($insert, [1]));
            });
            self::fail('The outer transaction must refuse a statement while its savepoint is open');
        } catch (\Throwable $e) {
            self::assertInstanceOf($this->transactionException(), $e);
        }

        self::assertSame('', $this->committedIds($table));
    }

    public function testATransactionUsedAfterItsCallbackThrowsTheClientsTransactionException(): void
    {
        $kept = $this->pool()->transaction(static fn (Transaction $tx): Transaction => $tx);

        self::assertFalse($kept->isActive());
        $this->expectException($this->transactionException());
        $kept->query('SELECT 1');
    }

    public function testACancellationThatFiresDuringTheCommitDoesNotCancelIt(): void
    {
        $table = $this->createTable();
        $this->slowCommit($table);
        $insert = $this->insert($table);
        $source = new CancellationSource();

        $this->pool()->transaction(static function (Transaction $tx) use ($insert, $source): void {
            $tx->execute($insert, [1]);
            Async::run(static function () use ($source): void {
                Async::delay(0.15);
                $source->cancel();
            });
        }, null, $source->token());

        self::assertSame('1', $this->committedIds($table), 'COMMIT ran although the transaction\'s cancellation had fired');
    }

    private function insert(string $table): string
    {
        return \sprintf('INSERT INTO %s (id) VALUES (%s)', $table, $this->firstParameter());
    }
}
