<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Redis;

use Bobbin\Async\TimeoutCancellation;
use Bobbin\Redis\Client;
use Bobbin\Redis\ClientConfig;
use Bobbin\Redis\ConnectionConfig;
use Bobbin\Redis\Message;
use Bobbin\Redis\MessagesMissed;
use Bobbin\Redis\Subscriber;
use Bobbin\Redis\SubscriptionEvent;
use Bobbin\Tests\Support\Redis\EmbeddedRedis;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/** Channels, patterns and shard channels, through CLIENT KILL TYPE pubsub and a server restart. */
final class PubSubTest extends TestCase
{
    /** @return iterable<string, array{int}> */
    public static function protocols(): iterable
    {
        yield 'RESP3' => [3];
        yield 'RESP2' => [2];
    }

    private static function client(int $protocol): Client
    {
        return new Client(new ClientConfig(ConnectionConfig::fromUrl(EmbeddedRedis::url())->with(protocol: $protocol)));
    }

    private static function next(Subscriber $subscriber): SubscriptionEvent
    {
        return $subscriber->receive(new TimeoutCancellation(5.0));
    }

    /** @param list<Message> $expected */
    private static function assertMessages(array $expected, Subscriber $subscriber): void
    {
        $received = [];
        foreach ($expected as $ignored) {
            $received[] = self::next($subscriber);
        }
        \usort($received, static fn ($a, $b) => [$a->channel ?? '', $a->payload ?? ''] <=> [$b->channel ?? '', $b->payload ?? '']);
        \usort($expected, static fn ($a, $b) => [$a->channel, $a->payload] <=> [$b->channel, $b->payload]);
        self::assertEquals($expected, $received);
    }

    #[DataProvider('protocols')]
    public function testMessagesOfChannelsPatternsAndShardChannelsArrive(int $protocol): void
    {
        $redis = self::client($protocol);
        $p = 'ps' . \bin2hex(\random_bytes(3));
        $subscriber = $redis->subscribe(["$p:news"], ["$p:alerts:*"], ["$p:shard"]);

        self::assertSame(1, $redis->publish("$p:news", 'hello'));
        self::assertEquals(new Message("$p:news", 'hello'), self::next($subscriber));
        $redis->publish("$p:alerts:fire", 'run');
        self::assertEquals(new Message("$p:alerts:fire", 'run', "$p:alerts:*"), self::next($subscriber));
        $redis->command('SPUBLISH', "$p:shard", 'sharded');
        self::assertEquals(new Message("$p:shard", 'sharded', null, true), self::next($subscriber));

        $subscriber->subscribe(["$p:late"]);
        $redis->publish("$p:late", 'joined');
        self::assertEquals(new Message("$p:late", 'joined'), self::next($subscriber));
        $subscriber->unsubscribe(["$p:news"]);
        self::assertSame(0, $redis->publish("$p:news", 'gone'));
        $subscriber->close();
    }

    #[DataProvider('protocols')]
    public function testAfterCLIENTKILLEveryChannelAndPatternComesBackAndTheGapIsReported(int $protocol): void
    {
        $redis = self::client($protocol);
        $p = 'ps' . \bin2hex(\random_bytes(3));
        $subscriber = $redis->subscribe(["$p:a", "$p:b"], ["$p:p:*"], ["$p:s"]);

        EmbeddedRedis::cli('CLIENT', 'KILL', 'TYPE', 'pubsub');
        $gap = self::next($subscriber);
        self::assertInstanceOf(MessagesMissed::class, $gap);
        self::assertGreaterThanOrEqual($gap->lostAt, $gap->resubscribedAt);
        self::assertSame(1, $subscriber->reconnects());

        $redis->publish("$p:a", '1');
        $redis->publish("$p:b", '2');
        $redis->publish("$p:p:x", '3');
        $redis->command('SPUBLISH', "$p:s", '4');
        self::assertMessages([
            new Message("$p:a", '1'),
            new Message("$p:b", '2'),
            new Message("$p:p:x", '3', "$p:p:*"),
            new Message("$p:s", '4', null, true),
        ], $subscriber);
        $subscriber->close();
    }

    public function testAfterAServerRestartTheSubscriptionsComeBackAndTheGapIsReported(): void
    {
        $redis = self::client(3);
        $p = 'ps' . \bin2hex(\random_bytes(3));
        $subscriber = $redis->subscribe(["$p:a"], ["$p:p:*"]);

        EmbeddedRedis::restart();
        $gap = self::next($subscriber);
        self::assertInstanceOf(MessagesMissed::class, $gap);

        self::assertSame(1, $redis->publish("$p:a", 'after restart'), 'the shared connection reconnects too');
        $redis->publish("$p:p:q", 'pattern');
        self::assertMessages([new Message("$p:a", 'after restart'), new Message("$p:p:q", 'pattern', "$p:p:*")], $subscriber);
        $subscriber->close();
    }
}
