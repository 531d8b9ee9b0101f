<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Redis;

use Bobbin\Async\Async;
use Bobbin\Async\CancelledException;
use Bobbin\Async\Future;
use Bobbin\Async\TimeoutCancellation;
use Bobbin\Redis\Client;
use Bobbin\Redis\ClientConfig;
use Bobbin\Redis\Connection;
use Bobbin\Redis\ConnectionConfig;
use Bobbin\Redis\Exception\AuthenticationException;
use Bobbin\Redis\Exception\CommandNotAllowedException;
use Bobbin\Redis\Exception\ConnectException;
use Bobbin\Redis\Exception\ConnectionLostException;
use Bobbin\Redis\SetCondition;
use Bobbin\Tests\Support\Redis\EmbeddedRedis;
use PHPUnit\Framework\TestCase;

final class ClientTest extends TestCase
{
    private static function key(string $name): string
    {
        return 'client:' . $name . ':' . \bin2hex(\random_bytes(4));
    }

    public function testTheTypedHelpersDoWhatTheirCommandsDo(): void
    {
        $redis = new Client(EmbeddedRedis::url());
        $k = self::key('helpers');

        self::assertTrue($redis->set($k, 'v', 10.5));
        self::assertFalse($redis->set($k, 'w', null, SetCondition::IfNew));
        self::assertTrue($redis->set($k . ':new', 'w', null, SetCondition::IfNew));
        self::assertFalse($redis->set($k . ':absent', 'w', null, SetCondition::IfExists));
        self::assertEqualsWithDelta(10.5, $redis->ttl($k), 0.1);
        self::assertSame(\INF, $redis->ttl($k . ':new'));
        self::assertNull($redis->ttl($k . ':absent'));
        self::assertTrue($redis->persist($k));
        self::assertTrue($redis->expire($k, 5));
        self::assertSame(5, $redis->incr($k . ':n', 5));
        self::assertSame(6, $redis->incr($k . ':n'));
        self::assertSame(7.5, $redis->incrByFloat($k . ':n', 1.5));
        $redis->mSet([$k . ':a' => 'A', $k . ':b' => 2]);
        self::assertSame(['A', '2', null], $redis->mGet([$k . ':a', $k . ':b', $k . ':c']));
        self::assertSame(2, $redis->exists([$k . ':a', $k . ':b', $k . ':c']));
        self::assertSame(1, $redis->hSet($k . ':h', ['f' => 'x']));
        self::assertSame('x', $redis->hGet($k . ':h', 'f'));
        self::assertSame(3, $redis->hIncrBy($k . ':h', 'g', 3));
        self::assertSame(2, $redis->hLen($k . ':h'));
        self::assertSame(1, $redis->hDel($k . ':h', ['f']));
        self::assertSame(2, $redis->lPush($k . ':l', ['b', 'a']));
        self::assertSame(3, $redis->rPush($k . ':l', ['c']));
        self::assertSame('a', $redis->lPop($k . ':l'));
        self::assertSame('c', $redis->rPop($k . ':l'));
        self::assertSame(1, $redis->lLen($k . ':l'));
        self::assertSame(2, $redis->sAdd($k . ':s', ['m', 'n']));
        self::assertTrue($redis->sIsMember($k . ':s', 'm'));
        self::assertSame(1, $redis->sRem($k . ':s', ['m']));
        self::assertSame(1, $redis->sCard($k . ':s'));
        self::assertSame(2, $redis->zAdd($k . ':z', ['p' => 2, 'q' => 1]));
        self::assertSame(4.5, $redis->zIncrBy($k . ':z', 'p', 2.5));
        self::assertSame(['q', 'p'], $redis->zRange($k . ':z'));
        self::assertSame(1, $redis->zRem($k . ':z', ['q']));
        self::assertSame(1, $redis->zCard($k . ':z'));
        self::assertSame(0, $redis->publish($k, 'nobody listens'));
        $redis->ping();
        self::assertSame(10, $redis->del([$k, $k . ':new', $k . ':n', $k . ':a', $k . ':b', $k . ':h', $k . ':l', $k . ':s', $k . ':z', $k . ':absent']) + 1);
    }

    public function testScanIteratorsWalkEveryKeyFieldAndMember(): void
    {
        $redis = new Client(EmbeddedRedis::url());
        $prefix = self::key('scan');
        for ($i = 0; $i < 250; $i++) {
            $redis->set("$prefix:$i", 'x');
        }
        $redis->hSet("$prefix-h", \array_combine(\array_map(static fn ($i) => "f$i", \range(1, 300)), \range(1, 300)));
        $redis->sAdd("$prefix-s", \array_map(static fn ($i) => "m$i", \range(1, 300)));
        $redis->zAdd("$prefix-z", \array_combine(\array_map(static fn ($i) => "z$i", \range(1, 300)), \range(1, 300)));

        $keys = \array_unique(\iterator_to_array($redis->scan("$prefix:*", 50), false));
        self::assertCount(250, $keys);
        $fields = \iterator_to_array($redis->hScan("$prefix-h", null, 50));
        self::assertCount(300, $fields);
        self::assertSame('7', $fields['f7']);
        self::assertCount(300, \array_unique(\iterator_to_array($redis->sScan("$prefix-s", 'm*', 50), false)));
        $scores = \iterator_to_array($redis->zScan("$prefix-z"));
        self::assertSame(42.0, $scores['z42']);
        self::assertContains("$prefix-h", \iterator_to_array($redis->scan("$prefix-*", 100, 'hash'), false));
        self::assertNotContains("$prefix-s", \iterator_to_array($redis->scan("$prefix-*", 100, 'hash'), false));
    }

    public function testAScriptIsSentWholeOnlyWhenTheServerDoesNotKnowIt(): void
    {
        $redis = new Client(EmbeddedRedis::url());
        $script = "return {KEYS[1], ARGV[1], '" . \bin2hex(\random_bytes(4)) . "'}";
        EmbeddedRedis::cli('SCRIPT', 'FLUSH');

        $first = $redis->evalScript($script, ['k'], ['a']);
        self::assertSame(['k', 'a'], \array_slice($first, 0, 2));
        self::assertSame([1], $redis->command('SCRIPT', 'EXISTS', \sha1($script)));
        self::assertSame($first, $redis->evalScript($script, ['k'], ['a']));
        self::assertSame($first, $redis->evalSha(\sha1($script), ['k'], ['a']));
    }

    public function testCommandsThatWouldChangeTheSharedConnectionAreRefusedWithTheWayToDoThem(): void
    {
        $redis = new Client(EmbeddedRedis::url());
        $cases = [
            [['SUBSCRIBE', 'ch'], 'subscribe()'],
            [['multi'], 'transaction()'],
            [['BLPOP', 'q', 0], 'blocking()'],
            [['SELECT', 2], 'ConnectionConfig'],
            [['CLIENT', 'reply', 'off'], 'ConnectionConfig'],
            [['XREAD', 'BLOCK', 100, 'STREAMS', 's', '$'], 'blocking()'],
        ];
        foreach ($cases as [$command, $instead]) {
            try {
                $redis->execute($command);
                self::fail('accepted ' . \implode(' ', $command));
            } catch (CommandNotAllowedException $e) {
                self::assertStringContainsString($instead, $e->getMessage());
            }
        }
        self::assertSame([], $redis->command('XREAD', 'COUNT', 1, 'STREAMS', 'block', '0') ?? [], 'a key named "block" is a key');
    }

    public function testAWrongPasswordIsAnAuthenticationError(): void
    {
        $config = ConnectionConfig::fromUrl(EmbeddedRedis::url());
        try {
            Connection::connect($config->with(password: 'wrong'));
            self::fail('connected');
        } catch (AuthenticationException $e) {
            self::assertStringContainsString('WRONGPASS', $e->getMessage());
            self::assertStringNotContainsString('wrong', \str_replace('WRONGPASS', '', $e->getMessage()));
        }
        $this->expectException(AuthenticationException::class);
        $this->expectExceptionMessage('NOAUTH');
        Connection::connect($config->with(user: null, password: null));
    }

    public function testAnUnreachableServerIsAConnectError(): void
    {
        $this->expectException(ConnectException::class);
        $this->expectExceptionMessage('Cannot connect to Redis (default@127.0.0.1:1/0)');
        Connection::connect('redis://127.0.0.1:1');
    }

    public function testTlsAndTcpReachTheSameServer(): void
    {
        $tls = Connection::connect(EmbeddedRedis::tlsUrl());
        $tcp = Connection::connect(EmbeddedRedis::tcpUrl());
        $k = self::key('tls');

        $tls->set($k, 'over tls');
        self::assertSame('over tls', $tcp->get($k));
        self::assertSame(3, $tls->protocol());
        self::assertStringContainsString('tls:localhost', $tls->config()->describe());
        $tcp->del($k);
    }

    public function testALostConnectionFailsTheCommandsInFlightAndTheNextCommandReconnects(): void
    {
        $redis = new Client(EmbeddedRedis::url());
        $first = $redis->sharedConnection()->clientId();
        $k = self::key('lost');
        $blocked = Async::run(static fn () => $redis->blPop([$k], 5));
        // The connection kills itself in the middle of one pipeline: Redis answers the 100
        // ECHOs before the CLIENT KILL and the kill itself, then closes without reading on, so
        // the 100 after it are in flight when the connection is lost (a kill from outside on a
        // timer raced the answers: at times all of them arrived first). SKIPME no: by default
        // CLIENT KILL spares the connection that sends it. A script that keeps Redis busy for
        // 30 ms goes first, so that every command after it is queued behind an answer not yet
        // read and all leave in one write (a lone command is written at once, and its answer
        // can be read before the next fiber sends: the kill then lands between two writes).
        $payload = 'p';
        $busy = Async::run(static fn () => $redis->command('EVAL', "local s = redis.call('TIME') repeat local n = redis.call('TIME') until (n[1] - s[1]) * 1000000 + n[2] - s[2] > 30000 return 1", '0'));
        $echoes = [];
        for ($i = 0; $i < 200; $i++) {
            if ($i === 100) {
                $kill = Async::run(static fn () => $redis->command('CLIENT', 'KILL', 'ID', (string) $first, 'SKIPME', 'no'));
            }
            $echoes[] = Async::run(static fn () => $redis->command('ECHO', "$i:$payload"));
        }
        $answered = $lost = 0;
        foreach ($echoes as $i => $echo) {
            try {
                self::assertSame("$i:$payload", $echo->await());
                $answered++;
            } catch (ConnectionLostException $e) {
                self::assertStringContainsString('may or may not have run', $e->getMessage());
                $lost++;
            }
        }

        self::assertSame([100, 100], [$answered, $lost], 'the ECHOs before the kill answered, those after it lost');
        self::assertSame(1, $busy->await());
        self::assertSame(1, $kill->await());
        self::assertSame('again', $redis->command('ECHO', 'again'));
        self::assertNotSame($first, $redis->sharedConnection()->clientId());
        $redis->rPush($k, ['x']);
        self::assertSame([$k, 'x'], $blocked->await(), 'the blocked command on its dedicated connection was not touched');
    }

    public function testABlockingCommandWaitsOnADedicatedConnectionWhileTheSharedOneGoesOn(): void
    {
        $redis = new Client(EmbeddedRedis::url());
        $k = self::key('queue');
        $popped = Async::run(static fn () => $redis->blPop([$k], 5));
        Async::delay(0.05);
        self::assertSame('shared is free', $redis->command('ECHO', 'shared is free'));
        $redis->rPush($k, ['job']);

        self::assertSame([$k, 'job'], $popped->await());
        self::assertNull($redis->brPop([$k], 0.05));
    }

    public function testACancelledBlockingCommandIsUnblockedOnTheServerAndItsConnectionReused(): void
    {
        $redis = new Client(ClientConfig::fromUrl(EmbeddedRedis::url(), poolMaxSize: 1));
        $k = self::key('unblock');
        $blockedBefore = self::blockedClients();
        $started = \microtime(true);
        try {
            $redis->blPop([$k], 0, new TimeoutCancellation(0.1));
            self::fail('popped');
        } catch (CancelledException) {
            self::assertLessThan(0.5, \microtime(true) - $started);
        }
        Async::delay(0.1);
        self::assertSame($blockedBefore, self::blockedClients(), 'the server unblocked it');
        $redis->rPush($k, ['later']);

        self::assertSame([$k, 'later'], $redis->blPop([$k], 1), 'the pool of one lent its connection again');
        self::assertSame(1, $redis->statistics()->open);
    }

    private static function blockedClients(): int
    {
        \preg_match('/blocked_clients:(\d+)/', EmbeddedRedis::cli('INFO', 'clients'), $m);

        return (int) ($m[1] ?? -1);
    }
}
