<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Tarantool;

use Bobbin\Async\Async;
use Bobbin\Async\CancelledException;
use Bobbin\Async\CancelledOutcomeUnknownException;
use Bobbin\Async\Future;
use Bobbin\Async\OutcomeUnknown;
use Bobbin\Async\TimeoutCancellation;
use Bobbin\Async\TimeoutException;
use Bobbin\Tarantool\Connection;
use Bobbin\Tarantool\Exception\UniqueViolationException;
use Bobbin\Tests\Support\Tarantool\EmbeddedTarantool;
use PHPUnit\Framework\TestCase;

/**
 * The three outcomes of a request cancelled after its frame left (docs/CLIENTS.md section 5,
 * docs/TARANTOOL.md "Cancellation and timeouts"): IPROTO cannot stop it, so a read is the plain
 * cancellation at once, and anything that may write waits up to the settle time for its answer —
 * its result (done), the server's error (not done), or none in time (unknown).
 *
 * A request is held on the server by another session's Lua busy loop, which keeps the server's
 * transaction thread (and so every request behind it) for a fraction of a second. The request
 * timeout's case (the same, with RequestTimeoutException as the previous) is in ConcurrencyTest.
 */
final class CancellationOutcomeTest extends TestCase
{
    private Connection $connection;
    private string $space;

    protected function setUp(): void
    {
        $this->connection = Connection::connect(EmbeddedTarantool::url());
        $this->space = 'outcome_' . \bin2hex(\random_bytes(5));
        $this->connection->eval(
            "local name = ...\nbox.schema.space.create(name, {format = {{'k', 'string'}}})\nbox.space[name]:create_index('primary', {parts = {1, 'string'}})",
            [$this->space],
        );
        // The space's name resolved now: the requests under test are the first thing they send.
        $this->connection->select($this->space, ['none']);
    }

    protected function tearDown(): void
    {
        $cleanup = Connection::connect(EmbeddedTarantool::url());
        $cleanup->eval('box.space[...]:drop()', [$this->space]);
        $cleanup->close();
        $this->connection->close();
    }

    public function testAReadCancelledAfterItLeftIsThePlainCancellationAtOnce(): void
    {
        $busy = $this->holdTheServer(0.5);

        $took = self::timed(function (): void {
            try {
                $this->connection->select($this->space, ['a'], cancellation: new TimeoutCancellation(0.1, 'the caller gave up'));
                self::fail('The select must be cancelled');
            } catch (CancelledException $e) {
                self::assertNotInstanceOf(OutcomeUnknown::class, $e, 'A read changed nothing: not done');
                self::assertSame('the caller gave up', $e->getMessage());
            }
        });

        self::assertLessThan(0.4, $took, 'A read does not wait for its answer');
        $busy->await();
        self::assertSame([], $this->connection->select($this->space, ['a']), 'its late answer went to nobody');
    }

    public function testAnSqlReadCancelledAfterItLeftIsThePlainCancellationAtOnce(): void
    {
        $busy = $this->holdTheServer(0.5);

        $took = self::timed(function (): void {
            try {
                $this->connection->execute('SELECT 1', cancellation: new TimeoutCancellation(0.1));
                self::fail('The statement must be cancelled');
            } catch (CancelledException $e) {
                self::assertNotInstanceOf(OutcomeUnknown::class, $e);
            }
        });

        self::assertLessThan(0.4, $took);
        $busy->await();
    }

    public function testAWriteWhoseAnswerComesWithinTheSettleTimeIsReportedDoneWithItsResult(): void
    {
        $busy = $this->holdTheServer(0.5);

        $took = self::timed(function (): void {
            self::assertSame(['a'], $this->connection->insert($this->space, ['a'], cancellation: new TimeoutCancellation(0.1)));
        });

        self::assertGreaterThan(0.3, $took, 'It waited for the answer past its cancellation');
        self::assertLessThan(1.0, $took);
        self::assertSame([['a']], $this->connection->select($this->space, ['a']));
        $busy->await();
    }

    public function testAWriteTheServerRefusesWithinTheSettleTimeIsItsErrorNotDone(): void
    {
        $this->connection->insert($this->space, ['a']);
        $busy = $this->holdTheServer(0.5);

        $this->expectException(UniqueViolationException::class);
        try {
            $this->connection->insert($this->space, ['a'], cancellation: new TimeoutCancellation(0.1));
        } finally {
            $busy->await();
        }
    }

    public function testACallWithNoAnswerWithinTheSettleTimeIsUnknownAndTheNextRequestGetsItsOwnAnswer(): void
    {
        $took = self::timed(function (): void {
            try {
                $this->connection->eval(
                    "local space, key = ...\nrequire('fiber').sleep(1.8)\nbox.space[space]:insert{key}",
                    [$this->space, 'late'],
                    cancellation: new TimeoutCancellation(0.1, 'the caller gave up'),
                );
                self::fail('The call must be cancelled');
            } catch (CancelledOutcomeUnknownException $e) {
                self::assertSame('the caller gave up', $e->getMessage(), 'The cancellation, as a CancelledException catch saw it before');
                self::assertInstanceOf(TimeoutException::class, $e->getPrevious());
            }
        });

        self::assertGreaterThan(1.0, $took, 'It waited the settle time');
        self::assertLessThan(1.7, $took, 'Not for the call to end');
        self::assertSame(['own'], $this->connection->eval('return ...', ['own']));
        Async::delay(0.9); // the call ends: it took effect, and its late answer is dropped
        self::assertSame([['late']], $this->connection->select($this->space, ['late']), 'Unknown was right to not say "not done"');
        self::assertSame(['next'], $this->connection->eval('return ...', ['next']));
        self::assertSame(0, $this->connection->inFlight());
    }

    /**
     * Another session's busy loop holds the server's transaction thread for $seconds.
     *
     * @return Future<null>
     */
    private function holdTheServer(float $seconds): Future
    {
        $other = Connection::connect(EmbeddedTarantool::url());
        $busy = Async::run(static function () use ($other, $seconds): void {
            $other->eval("local clock = require('clock')\nlocal stop = clock.monotonic() + ...\nwhile clock.monotonic() < stop do end", [$seconds]);
            $other->close();
        });
        Async::delay(0.05); // it runs before anything sent from now on

        return $busy;
    }

    private static function timed(\Closure $work): float
    {
        $started = \microtime(true);
        $work();

        return \microtime(true) - $started;
    }
}
