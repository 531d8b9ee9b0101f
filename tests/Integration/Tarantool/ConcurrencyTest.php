<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Tarantool;

use Bobbin\Async\Async;
use Bobbin\Async\CancellationSource;
use Bobbin\Async\CancelledOutcomeUnknownException;
use Bobbin\Async\Future;
use Bobbin\Async\TimeoutCancellation;
use Bobbin\Async\TimeoutException;
use Bobbin\Tarantool\Connection;
use Bobbin\Tarantool\ConnectionConfig;
use Bobbin\Tarantool\Exception\RequestTimeoutException;
use Bobbin\Tests\Support\Tarantool\EmbeddedTarantool;
use PHPUnit\Framework\TestCase;

/** Many fibers on one connection: pipelined requests, answers in any order, each to its own fiber. */
final class ConcurrencyTest extends TestCase
{
    public function testAThousandFibersOnOneConnectionEachGetTheirOwnAnswerThoughTheyComeOutOfOrder(): void
    {
        $connection = Connection::connect(EmbeddedTarantool::url());
        $finished = [];
        $tasks = [];
        for ($i = 0; $i < 1000; $i++) {
            $tasks[] = Async::run(static function () use ($connection, $i, &$finished): string {
                // A random pause on the server: the answers come back in another order.
                $answer = $connection->call('sleep_echo', ["fiber $i", \mt_rand(0, 50) / 1000])[0];
                $finished[] = $i;

                return $answer;
            });
        }
        $started = \microtime(true);
        $answers = Future::awaitAll($tasks);

        foreach ($answers as $i => $answer) {
            self::assertSame("fiber $i", $answer);
        }
        self::assertCount(1000, $finished);
        self::assertNotSame(\range(0, 999), $finished, 'the answers came in the order sent');
        self::assertLessThan(2.0, \microtime(true) - $started, 'the requests did not run side by side');
        self::assertSame(0, $connection->inFlight());
        $connection->close();
    }

    public function testDifferentRequestTypesInterleaveOnOneConnection(): void
    {
        $connection = Connection::connect(EmbeddedTarantool::url());
        $connection->eval('box.space.bench:truncate() for i = 1, 100 do box.space.bench:insert({i, "tuple_" .. i}) end');
        $results = Async::map(\range(1, 100), static fn (int $id): array => match ($id % 4) {
            0 => $connection->select('bench', $id),
            1 => [$connection->call('bench_get', [$id])[0]],
            2 => $connection->execute('SELECT "id", "value" FROM "bench" WHERE "id" = ?', [$id])->rows === [] ? [] : [[$id, "tuple_$id"]],
            default => [$connection->eval('return box.space.bench:get(...)', [$id])[0]],
        }, 100);

        foreach ($results as $i => $tuples) {
            self::assertSame([[$i + 1, 'tuple_' . ($i + 1)]], $tuples);
        }
        $connection->close();
    }

    public function testACancelledRequestsLateAnswerIsDroppedNeverHandedToAnotherFiber(): void
    {
        $connection = Connection::connect(EmbeddedTarantool::url());
        $source = new CancellationSource();
        // Past the settle time (docs/TARANTOOL.md "Cancellation and timeouts"): unknown, and its
        // answer comes after its caller stopped waiting.
        $cancelled = Async::run(static fn () => $connection->call('sleep_echo', ['late', 1.5], null, false, $source->token()));
        $others = [];
        for ($i = 0; $i < 20; $i++) {
            $others[] = Async::run(static fn () => $connection->call('sleep_echo', ["other $i", 0.05 + $i * 0.02])[0]);
        }
        Async::delay(0.01);
        $source->cancel();

        foreach (Future::awaitAll($others) as $i => $answer) {
            self::assertSame("other $i", $answer);
        }
        try {
            $cancelled->await();
            self::fail('not cancelled');
        } catch (CancelledOutcomeUnknownException) {
            $this->addToAssertionCount(1);
        }
        Async::delay(0.6); // the late answer arrives meanwhile, read by the next request
        self::assertSame(['next'], $connection->call('sleep_echo', ['next', 0]));
        self::assertSame(0, $connection->inFlight());
        $connection->close();
    }

    public function testTheReadingFiberCanBeCancelledAndAnotherTakesOver(): void
    {
        $connection = Connection::connect(EmbeddedTarantool::url());
        // The first request's fiber becomes the reader; it gives up long before the others are
        // answered, and waits the settle time for its own answer as a waiter among them.
        $reader = Async::run(static fn () => $connection->call('sleep_echo', ['r', 1.5], null, false, new TimeoutCancellation(0.05)));
        $waiters = [];
        for ($i = 0; $i < 10; $i++) {
            $waiters[] = Async::run(static fn () => $connection->call('sleep_echo', [$i, 0.1])[0]);
        }

        self::assertSame(\range(0, 9), Future::awaitAll($waiters));
        try {
            $reader->await();
            self::fail('not timed out');
        } catch (CancelledOutcomeUnknownException $e) {
            self::assertInstanceOf(TimeoutException::class, $e->getPrevious());
        }
        $connection->close();
    }

    public function testTheRequestTimeoutOfTheConfigBoundsEveryRequest(): void
    {
        $config = ConnectionConfig::fromUrl(EmbeddedTarantool::url(), requestTimeout: 0.1);
        $connection = Connection::connect($config);

        try {
            $connection->call('sleep_echo', [1, 1.5]);
            self::fail('no timeout');
        } catch (CancelledOutcomeUnknownException $e) {
            // A call may write: after the settle time with no answer, unknown (CancellationOutcomeTest).
            self::assertInstanceOf(RequestTimeoutException::class, $e->getPrevious());
            self::assertStringContainsString('within the request timeout of 0.100 s', $e->getMessage());
        }
        // Answered within the settle time: its result, though the request timeout passed.
        self::assertSame([2], $connection->call('sleep_echo', [2, 0.4]));
        self::assertSame([3], $connection->call('sleep_echo', [3, 0]));
        $connection->close();
    }
}
