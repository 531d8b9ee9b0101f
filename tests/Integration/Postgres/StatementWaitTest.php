<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Postgres;

use Bobbin\Async\Async;
use Bobbin\Tests\Support\Async\SocketPairs;
use Revolt\EventLoop;

/**
 * How a statement waits for its answer. With nothing else on the loop it waits inside libpq, as
 * a blocking pg_query_params() does; whenever anything else could need the process meanwhile (a
 * timer, a watched stream, another fiber) it waits through the loop and never holds that up.
 */
final class StatementWaitTest extends PostgresTestCase
{
    use SocketPairs;

    public function testATimerDueWhileAStatementRunsFiresOnTime(): void
    {
        $pool = $this->pool(maxSize: 1);
        $pool->query('SELECT 1');
        $started = \hrtime(true);
        $firedAfter = null;
        EventLoop::delay(0.05, static function () use (&$firedAfter, $started): void {
            $firedAfter = (\hrtime(true) - $started) / 1e9;
        });

        $pool->query('SELECT pg_sleep(0.4)');
        $statementTook = (\hrtime(true) - $started) / 1e9;

        self::assertNotNull($firedAfter, 'the timer fired while the statement ran');
        self::assertLessThan(0.3, $firedAfter);
        self::assertGreaterThan(0.35, $statementTook);
        $pool->close();
    }

    public function testAWatchedStreamIsServedWhileAStatementRuns(): void
    {
        $pool = $this->pool(maxSize: 1);
        $pool->query('SELECT 1');
        [$reader, $writer] = self::socketPair();
        $started = \hrtime(true);
        $readAfter = null;
        $watch = EventLoop::onReadable($reader, static function (string $id) use ($reader, &$readAfter, $started): void {
            \fread($reader, 100);
            $readAfter = (\hrtime(true) - $started) / 1e9;
            EventLoop::cancel($id);
        });
        $writerFiber = Async::run(static function () use ($writer): void {
            Async::delay(0.05);
            \fwrite($writer, 'ping');
        });

        $pool->query('SELECT pg_sleep(0.4)');
        $writerFiber->await();

        self::assertNotNull($readAfter);
        self::assertLessThan(0.3, $readAfter);
        EventLoop::cancel($watch);
        $pool->close();
    }

    public function testStatementsInAPlainScriptGiveTheSameResultsAndErrorsAsThroughTheLoop(): void
    {
        $pool = $this->pool(maxSize: 1);
        [$reader, $writer] = self::socketPair();
        $run = static function () use ($pool): array {
            $outcome = [$pool->queryAll('SELECT g AS n, g % 2 = 0 AS even FROM generate_series(1, 3) g')];
            try {
                $pool->query('SELECT 1 / 0');
            } catch (\Bobbin\Postgres\Exception\QueryException $e) {
                $outcome[] = [$e::class, $e->sqlState()];
            }

            return $outcome;
        };

        $idle = $run();
        $watch = EventLoop::onReadable($reader, static function (): void {
        });
        $throughTheLoop = $run();
        EventLoop::cancel($watch);

        self::assertSame($throughTheLoop, $idle);
        self::assertSame([['n' => 1, 'even' => false], ['n' => 2, 'even' => true], ['n' => 3, 'even' => false]], $idle[0]);
        self::assertSame('22012', $idle[1][1]);
        \fclose($writer);
        $pool->close();
    }
}
