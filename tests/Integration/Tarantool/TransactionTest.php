<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Tarantool;

use Bobbin\Async\Async;
use Bobbin\Async\Future;
use Bobbin\Tarantool\Connection;
use Bobbin\Tarantool\ConnectionPool;
use Bobbin\Tarantool\Exception\ConnectionLostException;
use Bobbin\Tarantool\Exception\QueryException;
use Bobbin\Tarantool\Exception\TransactionException;
use Bobbin\Tarantool\PoolConfig;
use Bobbin\Tarantool\Transaction;
use Bobbin\Tests\Support\Tarantool\EmbeddedTarantool;
use Bobbin\Tests\Support\Tarantool\FakeTarantoolServer;
use PHPUnit\Framework\TestCase;

/**
 * Interactive transactions on streams (Tarantool 2.10+), played by the fake server, which tells
 * what it received through call('journal'): [request type, stream id] per request. And what
 * Debian's Tarantool 2.6 says to them.
 */
final class TransactionTest extends TestCase
{
    private const BEGIN = 0x0e;
    private const COMMIT = 0x0f;
    private const ROLLBACK = 0x10;
    private const CALL = 0x0a;

    private ?FakeTarantoolServer $server = null;

    protected function tearDown(): void
    {
        $this->server?->stop();
    }

    private function connect(string $scenario = 'normal'): Connection
    {
        $this->server = FakeTarantoolServer::start($scenario);

        return Connection::connect($this->server->config());
    }

    public function testATransactionSendsBeginItsRequestsAndCommitOnAStreamOfItsOwn(): void
    {
        $connection = $this->connect();

        $result = $connection->transaction(static fn (Transaction $tx): array => $tx->call('work'));
        $connection->call('outside');

        self::assertSame(['ok'], $result);
        self::assertSame([[self::BEGIN, 1], [self::CALL, 1], [self::COMMIT, 1], [self::CALL, 0]], $connection->call('journal'));
    }

    public function testEachTransactionTakesTheNextStreamId(): void
    {
        $connection = $this->connect();

        $first = $connection->transaction(static fn (Transaction $tx): int => $tx->streamId);
        $second = $connection->transaction(static fn (Transaction $tx): int => $tx->streamId);

        self::assertSame([1, 2], [$first, $second]);
    }

    public function testAnExceptionFromTheCallbackRollsBackAndReachesTheCaller(): void
    {
        $connection = $this->connect();

        try {
            $connection->transaction(static function (Transaction $tx): void {
                $tx->call('work');
                throw new \DomainException('changed my mind');
            });
            self::fail('The exception was swallowed');
        } catch (\DomainException $e) {
            self::assertSame('changed my mind', $e->getMessage());
        }

        self::assertSame([[self::BEGIN, 1], [self::CALL, 1], [self::ROLLBACK, 1]], $connection->call('journal'));
    }

    public function testATransactionRefusesUseAfterItsCallback(): void
    {
        $connection = $this->connect();
        $kept = $connection->transaction(static fn (Transaction $tx): Transaction => $tx);

        $this->expectException(TransactionException::class);
        $kept->call('late');
    }

    public function testTwoTransactionsOfTwoFibersInterleaveOnOneConnectionEachOnItsStream(): void
    {
        $connection = $this->connect();
        $work = static fn () => $connection->transaction(static function (Transaction $tx): void {
            $tx->call('one');
            $tx->call('two');
        });

        Future::awaitAll([Async::run($work), Async::run($work)]);
        $journal = $connection->call('journal');

        foreach ([1, 2] as $stream) {
            $mine = \array_values(\array_filter($journal, static fn (array $entry): bool => $entry[1] === $stream));
            self::assertSame([[self::BEGIN, $stream], [self::CALL, $stream], [self::CALL, $stream], [self::COMMIT, $stream]], $mine);
        }
        self::assertLessThan(\array_search([self::COMMIT, 1], $journal, true), \array_search([self::BEGIN, 2], $journal, true), 'The second transaction began only after the first ended');
    }

    public function testARequestOfATransactionWhoseConnectionBrokeIsNeverSentAgain(): void
    {
        $connection = $this->connect('drop-in-transaction');

        try {
            $connection->transaction(static fn (Transaction $tx): array => $tx->call('work', idempotent: true));
            self::fail('The transaction went on over a new connection');
        } catch (ConnectionLostException) {
        }

        self::assertSame([[self::BEGIN, 1], [self::CALL, 1]], $connection->call('journal'), 'Nothing of the transaction went out again, over the next connection either');
    }

    public function testAPoolRunsTheTransactionOnOneConnection(): void
    {
        $this->server = FakeTarantoolServer::start('normal');
        $pool = new ConnectionPool(new PoolConfig($this->server->config()));

        $pool->transaction(static fn (Transaction $tx): array => $tx->call('work'));

        self::assertSame([[self::BEGIN, 1], [self::CALL, 1], [self::COMMIT, 1]], $pool->call('journal'));
        $pool->close();
    }

    public function testTarantool26RefusesBeginBeforeTheCallbackRunsAndTheConnectionGoesOn(): void
    {
        $connection = Connection::connect(EmbeddedTarantool::url());
        $ran = false;

        try {
            $connection->transaction(static function () use (&$ran): void {
                $ran = true;
            });
            self::fail('Tarantool 2.6 began a transaction');
        } catch (QueryException $e) {
            self::assertSame(48, $e->errorCode());
            self::assertStringContainsString('Unknown request type 14', $e->getMessage());
        }

        self::assertFalse($ran);
        $connection->ping();
        $connection->close();
    }
}
