<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Postgres;

use Bobbin\Async\OutcomeUnknown;
use Bobbin\Postgres\Connection;
use Bobbin\Postgres\ConnectionConfig;
use Bobbin\Postgres\ConnectionPool;
use Bobbin\Postgres\Exception\ConnectionLostException;
use Bobbin\Postgres\PoolConfig;
use Bobbin\Tests\Support\Postgres\FakeFault;
use Bobbin\Tests\Support\Postgres\FakePostgresServer;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * A result read completely is a result: when the rows, CommandComplete and ReadyForQuery have
 * arrived, the caller gets them even if the server hangs up right after (a committed write is
 * never reported as failed). A server lost before the end of the exchange is a
 * ConnectionLostException. No real server can be made to die at exactly these points: a
 * scripted fake does (tests/Support/Postgres).
 */
final class ConnectionLostAfterAnswerTest extends TestCase
{
    private ?FakePostgresServer $server = null;
    /** @var list<Connection|ConnectionPool> */
    private array $clients = [];

    protected function tearDown(): void
    {
        foreach ($this->clients as $client) {
            $client->close();
        }
        $this->clients = [];
        $this->server?->stop();
        $this->server = null;
    }

    /**
     * A deadline makes the statement wait through the loop; without one, and with nothing else
     * on the loop, it waits inside libpq. Both paths read the answer differently.
     *
     * @return iterable<string, array{float|null}>
     */
    public static function waits(): iterable
    {
        yield 'waiting through the loop' => [5.0];
        yield 'waiting inside libpq' => [null];
    }

    #[DataProvider('waits')]
    public function testAPreparedQueryAnsweredInFullReturnsItsRowsThoughTheServerHangsUpRightAfter(?float $queryTimeout): void
    {
        $connection = $this->connect(FakeFault::TerminateAfterAnswer, $queryTimeout, 256);

        $result = $connection->query('SELECT n FROM t WHERE n > $1', [0]);

        self::assertSame([['n' => 1], ['n' => 2]], $result->rows);
        self::assertSame('SELECT 2', $result->command);
    }

    #[DataProvider('waits')]
    public function testAnUnnamedQueryAnsweredInFullReturnsItsRowsThoughTheServerHangsUpRightAfter(?float $queryTimeout): void
    {
        $connection = $this->connect(FakeFault::TerminateAfterAnswer, $queryTimeout, 0);

        $result = $connection->query('SELECT n FROM t WHERE n > $1', [0]);

        self::assertSame([['n' => 1], ['n' => 2]], $result->rows);
    }

    #[DataProvider('waits')]
    public function testACommandAnsweredInFullReturnsItsResultThoughTheServerHangsUpRightAfter(?float $queryTimeout): void
    {
        $connection = $this->connect(FakeFault::TerminateAfterAnswer, $queryTimeout, 256);

        $result = $connection->command('DELETE FROM t');

        self::assertSame(1, $result->affectedRows);
        self::assertSame('DELETE 1', $result->command);
    }

    public function testTheConnectionIsClosedAfterTheAnswerAndItsNextStatementFailsWithoutBeingSent(): void
    {
        $connection = $this->connect(FakeFault::TerminateAfterAnswer, 5.0, 256);
        self::assertSame(1, $connection->execute('DELETE FROM t WHERE n = $1', [1]));

        // The server's close arrives with the answer or, on a busy machine, a moment after it:
        // then the idle check is what sees it.
        $deadline = \microtime(true) + 2.0;
        while (!$connection->isClosed() && $connection->isAlive() && \microtime(true) < $deadline) {
            \usleep(5_000);
        }
        self::assertTrue($connection->isClosed());
        $this->expectException(ConnectionLostException::class);
        $this->expectExceptionMessageMatches('/^The server closed the connection (after answering|while it was idle)/');
        $connection->query('SELECT n FROM t');
    }

    public function testThePoolReturnsTheRowsAndDiscardsTheConnection(): void
    {
        $this->server = FakePostgresServer::start(FakeFault::TerminateAfterAnswer);
        $pool = new ConnectionPool(PoolConfig::fromConnectionString($this->server->connectionString(), maxSize: 1, queryTimeout: 5.0));
        $this->clients[] = $pool;

        self::assertSame(1, $pool->execute('DELETE FROM t WHERE n = $1', [1]));
        // The server's close reaches the client with the answer, or a moment later: then the
        // pool drops that session at release or at the next checkout, unseen. Only when it comes
        // later still — after the next statement was handed the session, which no client can
        // see coming (a loaded machine descheduled the server between its answer and its close)
        // — does that statement meet the close, and it is told so honestly (ConnectionLost, an
        // outcome unknown: never a wrong answer); the one after it gets a new session.
        try {
            $next = $pool->execute('DELETE FROM t WHERE n = $1', [2]);
        } catch (ConnectionLostException $lost) {
            self::assertInstanceOf(OutcomeUnknown::class, $lost);
            $next = $pool->execute('DELETE FROM t WHERE n = $1', [2]);
        }
        self::assertSame(1, $next, 'a later statement gets a new session');
        // The fake server ends every session after its answer: the second is dropped too, now or later.
        self::assertGreaterThanOrEqual(1, $pool->statistics()->discarded);
    }

    /** @return iterable<string, array{FakeFault, int}> */
    public static function incompleteAnswers(): iterable
    {
        foreach ([256 => 'prepared', 0 => 'unnamed'] as $cacheSize => $kind) {
            yield "terminated before ReadyForQuery, $kind" => [FakeFault::TerminateBeforeReady, $cacheSize];
            yield "closed after the first row, $kind" => [FakeFault::CloseMidResult, $cacheSize];
        }
    }

    #[DataProvider('incompleteAnswers')]
    public function testAServerLostBeforeTheEndOfTheExchangeGivesConnectionLostThroughTheLoop(FakeFault $fault, int $cacheSize): void
    {
        $connection = $this->connect($fault, 5.0, $cacheSize);

        try {
            $connection->query('SELECT n FROM t');
            self::fail('An answer without its end is no answer');
        } catch (ConnectionLostException) {
            self::assertTrue($connection->isClosed());
        }
    }

    #[DataProvider('incompleteAnswers')]
    public function testAServerLostBeforeTheEndOfTheExchangeGivesConnectionLostInsideLibpq(FakeFault $fault, int $cacheSize): void
    {
        $connection = $this->connect($fault, null, $cacheSize);

        $this->expectException(ConnectionLostException::class);
        $connection->query('SELECT n FROM t');
    }

    public function testASimpleQueryLostBeforeReadyForQueryGivesConnectionLost(): void
    {
        $connection = $this->connect(FakeFault::TerminateBeforeReady, 5.0, 256);

        $this->expectException(ConnectionLostException::class);
        $this->expectExceptionMessage('terminating connection due to administrator command');
        $connection->command('DELETE FROM t');
    }

    private function connect(FakeFault $fault, ?float $queryTimeout, int $statementCacheSize): Connection
    {
        $this->server = FakePostgresServer::start($fault);
        $connection = Connection::connect(new ConnectionConfig(
            $this->server->connectionString(),
            queryTimeout: $queryTimeout,
            statementCacheSize: $statementCacheSize,
        ));
        $this->clients[] = $connection;

        return $connection;
    }
}
