<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Redis;

use Bobbin\Redis\Client;
use Bobbin\Redis\Exception\TransactionConflictException;
use Bobbin\Redis\Exception\TransactionException;
use Bobbin\Redis\Exception\WrongTypeException;
use Bobbin\Redis\Transaction;
use Bobbin\Tests\Support\Redis\EmbeddedRedis;
use PHPUnit\Framework\TestCase;

final class TransactionTest extends TestCase
{
    private static function key(): string
    {
        return 'tx:' . \bin2hex(\random_bytes(4));
    }

    public function testQueuedCommandsRunTogetherAtExecAndTheirRepliesComeBackInOrder(): void
    {
        $redis = new Client(EmbeddedRedis::url());
        $k = self::key();
        $results = $redis->transaction(static function (Transaction $tx) use ($k): void {
            $tx->queue('SET', $k, 10);
            $tx->queue('INCRBY', $k, 5);
            $tx->queue('GET', $k);
        });

        self::assertSame(['OK', 15, '15'], $results);
    }

    public function testAWatchedKeyChangedBeforeExecIsAConflictAndNothingQueuedRan(): void
    {
        $redis = new Client(EmbeddedRedis::url());
        $k = self::key();
        $redis->set($k, '100');
        try {
            $redis->transaction(static function (Transaction $tx) use ($k, $redis): void {
                $balance = (int) $tx->get($k);
                $redis->set($k, '0'); // another writer, on another connection
                $tx->queue('SET', $k, $balance - 30);
                $tx->queue('SET', $k . ':log', 'paid');
            }, [$k]);
            self::fail('no conflict');
        } catch (TransactionConflictException $e) {
            self::assertStringContainsString('run the transaction again', $e->getMessage());
        }

        self::assertSame('0', $redis->get($k));
        self::assertNull($redis->get($k . ':log'));
        $again = $redis->transaction(static function (Transaction $tx) use ($k): void {
            $tx->queue('SET', $k, (int) $tx->get($k) + 1);
        }, [$k]);
        self::assertSame(['OK'], $again);
        self::assertSame('1', $redis->get($k));
    }

    public function testACallbackThatThrowsSendsNothingQueuedAndLeavesTheConnectionClean(): void
    {
        $redis = new Client(\Bobbin\Redis\ClientConfig::fromUrl(EmbeddedRedis::url(), poolMaxSize: 1));
        $k = self::key();
        try {
            $redis->transaction(static function (Transaction $tx) use ($k): void {
                $tx->queue('SET', $k, 'x');
                throw new \DomainException('changed my mind');
            }, [$k]);
            self::fail('no exception');
        } catch (\DomainException) {
        }
        self::assertNull($redis->get($k));
        $redis->set($k, 'changed by someone');
        // The same (only) dedicated connection: its WATCH was cleared, so no conflict now.
        self::assertSame(['OK'], $redis->transaction(static fn (Transaction $tx) => $tx->queue('SET', $k, 'mine')));
    }

    public function testAFailedCommandInsideExecDoesNotUndoTheOthers(): void
    {
        $redis = new Client(EmbeddedRedis::url());
        $k = self::key();
        $redis->rPush($k . ':list', ['x']);
        $results = $redis->transaction(static function (Transaction $tx) use ($k): void {
            $tx->queue('SET', $k, 'a');
            $tx->queue('INCR', $k . ':list');
            $tx->queue('SET', $k . ':after', 'b');
        });

        self::assertSame('OK', $results[0]);
        self::assertInstanceOf(WrongTypeException::class, $results[1]);
        self::assertSame('OK', $results[2]);
        self::assertSame('b', $redis->get($k . ':after'));
    }

    public function testACommandRefusedWhenQueuedAbortsTheWholeTransaction(): void
    {
        $redis = new Client(EmbeddedRedis::url());
        $k = self::key();
        try {
            $redis->transaction(static function (Transaction $tx) use ($k): void {
                $tx->queue('SET', $k, 'a');
                $tx->queue('NOSUCHCOMMAND', $k);
            });
            self::fail('no exception');
        } catch (TransactionException $e) {
            self::assertStringContainsString('EXECABORT', $e->getMessage());
        }
        self::assertNull($redis->get($k));
    }

    public function testTheTransactionRefusesUseAfterItsCallback(): void
    {
        $redis = new Client(EmbeddedRedis::url());
        $kept = null;
        $redis->transaction(static function (Transaction $tx) use (&$kept): void {
            $kept = $tx;
        });

        $this->expectException(TransactionException::class);
        $kept->queue('SET', 'late', 'x');
    }
}
