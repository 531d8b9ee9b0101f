<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Redis;

use Bobbin\Async\Async;
use Bobbin\Async\TimeoutCancellation;
use Bobbin\Redis\Client;
use Bobbin\Redis\Message;
use Bobbin\Redis\MessagesMissed;
use Bobbin\Tests\Support\Redis\RedisServerProcess;
use Bobbin\Tests\Support\ServerProcess;
use PHPUnit\Framework\TestCase;

/**
 * A burst of published messages against a redis-server of the test's own with Redis's default
 * `client-output-buffer-limit pubsub 32mb 8mb 60`: what the subscriber leaves on the server,
 * the server counts against that limit and closes the connection over it.
 */
final class PubSubBurstTest extends TestCase
{
    private ?ServerProcess $server = null;

    protected function tearDown(): void
    {
        $this->server?->remove();
    }

    public function testABurstOf100MegabytesReachesAConsumerThatKeepsUpWithoutADisconnect(): void
    {
        if (\trim((string) \shell_exec('command -v redis-benchmark')) === '') {
            self::markTestSkipped('redis-benchmark is not installed');
        }
        $this->server = RedisServerProcess::start();
        $redis = new Client(RedisServerProcess::url($this->server));
        self::assertStringContainsString('pubsub 33554432 8388608 60', \implode(' ', $redis->command('CONFIG', 'GET', 'client-output-buffer-limit')));
        $subscriber = $redis->subscribe(['burst', 'burst:end']);

        // 102,400 messages of 1 KB, pipelined 16 at a time from another process: ~100 MB, three
        // times the server's limit, in well under a second (bench/redis/subscriber.php has the
        // harsher burst, pipelined 500 at a time, which a machine under load can lose to).
        $count = 102_400;
        $publisher = \proc_open(
            \sprintf('redis-benchmark -h 127.0.0.1 -p %d -c 1 -n %d -P 16 -q PUBLISH burst %s && redis-cli -h 127.0.0.1 -p %1$d PUBLISH burst:end done', $this->server->port, $count, \str_repeat('x', 1024)),
            [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']],
            $pipes,
        );
        self::assertIsResource($publisher);
        $received = 0;
        $missed = [];
        $deadline = new TimeoutCancellation(30.0);
        try {
            while (true) {
                $event = $subscriber->receive($deadline);
                if ($event instanceof MessagesMissed) {
                    $missed[] = $event->reason; // the end marker may be lost with the rest

                    break;
                }
                \assert($event instanceof Message);
                if ($event->channel === 'burst:end') {
                    break;
                }
                $received++;
            }
        } finally {
            $deadline->dispose();
            \proc_close($publisher);
            $subscriber->close();
        }

        self::assertSame([], $missed, 'the subscriber lost its connection');
        self::assertSame($count, $received);
    }

    public function testAnApplicationThatFallsBehindTheSubscribersBoundIsToldSoWhenTheServerDropsIt(): void
    {
        if (\trim((string) \shell_exec('command -v redis-benchmark')) === '') {
            self::markTestSkipped('redis-benchmark is not installed');
        }
        $this->server = RedisServerProcess::start();
        $redis = new Client(RedisServerProcess::url($this->server));
        $redis->command('CONFIG', 'SET', 'client-output-buffer-limit', 'pubsub 1mb 1mb 0'); // quick to reach
        $subscriber = $redis->subscribe(['slow'], maxQueuedBytes: 1024 * 1024);

        // 8 MB published while the application takes nothing: the subscriber holds 1 MiB, then
        // stops reading; the server's buffer passes its 1 MB and it drops the connection.
        $publisher = \proc_open(
            \sprintf('redis-benchmark -h 127.0.0.1 -p %d -c 1 -n 8192 -P 16 -q PUBLISH slow %s', $this->server->port, \str_repeat('x', 1024)),
            [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']],
            $pipes,
        );
        self::assertIsResource($publisher);
        $deadline = new TimeoutCancellation(20.0);
        try {
            Async::delay(1.5, $deadline);
            $received = 0;
            while (!($event = $subscriber->receive($deadline)) instanceof MessagesMissed) {
                $received++;
            }
        } finally {
            $deadline->dispose();
            \proc_close($publisher);
            $subscriber->close();
        }

        self::assertGreaterThan(0, $received);
        self::assertLessThan(8192, $received);
        self::assertStringContainsString('after the application fell behind: 1 MiB of messages waited unread in the subscriber (its bound, maxQueuedBytes)', $event->reason);
    }
}
