<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Nats;

use Bobbin\Nats\Exception\ProtocolException;
use Bobbin\Nats\Headers;
use Bobbin\Nats\Internal\Commands;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class CommandsTest extends TestCase
{
    public function testConnectIsOneLineOfJson(): void
    {
        self::assertSame(
            "CONNECT {\"verbose\":false,\"user\":\"a/b\",\"name\":\"bobbin é\"}\r\n",
            Commands::connect(['verbose' => false, 'user' => 'a/b', 'name' => 'bobbin é']),
        );
    }

    public function testPubWithAndWithoutReplySubject(): void
    {
        self::assertSame("PUB orders.new 5\r\nhello\r\n", Commands::publish('orders.new', 'hello'));
        self::assertSame("PUB svc.echo _INBOX.x.1 2\r\nhi\r\n", Commands::publish('svc.echo', 'hi', '_INBOX.x.1'));
        self::assertSame("PUB s 0\r\n\r\n", Commands::publish('s', ''));
    }

    public function testHpubCountsHeaderAndTotalBytes(): void
    {
        $headers = Headers::of(['Nats-Msg-Id' => 'j1', 'X' => ['a', 'b']]);
        $block = "NATS/1.0\r\nNats-Msg-Id: j1\r\nX: a\r\nX: b\r\n\r\n";

        self::assertSame($block, $headers->encode());
        self::assertSame('HPUB jobs _R ' . \strlen($block) . ' ' . (\strlen($block) + 4) . "\r\n" . $block . "task\r\n", Commands::publish('jobs', 'task', '_R', $headers));
    }

    public function testSubAndUnsub(): void
    {
        self::assertSame("SUB orders.* 3\r\n", Commands::subscribe('orders.*', 3));
        self::assertSame("SUB jobs.run workers 4\r\n", Commands::subscribe('jobs.run', 4, 'workers'));
        self::assertSame("SUB _INBOX.abc.> 1\r\n", Commands::subscribe('_INBOX.abc.>', 1));
        self::assertSame("UNSUB 4\r\n", Commands::unsubscribe(4));
        self::assertSame("UNSUB 4 10\r\n", Commands::unsubscribe(4, 10));
        self::assertSame("PING\r\n", Commands::PING);
        self::assertSame("PONG\r\n", Commands::PONG);
    }

    /** @return iterable<string, array{string}> */
    public static function badPublishSubjects(): iterable
    {
        yield 'empty' => [''];
        yield 'a space would split the command' => ['a b'];
        yield 'CRLF would start another command' => ["a\r\nPUB x 1"];
        yield 'a tab' => ["a\tb"];
        yield 'an empty token' => ['a..b'];
        yield 'a leading dot' => ['.a'];
        yield 'a trailing dot' => ['a.'];
        yield 'a wildcard' => ['a.*'];
        yield 'a full wildcard' => ['a.>'];
    }

    #[DataProvider('badPublishSubjects')]
    public function testABadPublishSubjectIsRefusedBeforeAnythingIsBuilt(string $subject): void
    {
        $this->expectException(\InvalidArgumentException::class);
        Commands::publish($subject, 'x');
    }

    public function testAReplySubjectIsCheckedToo(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        Commands::publish('a', 'x', "r 1\r\n");
    }

    public function testAFullWildcardOnlyEndsASubscription(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        Commands::subscribe('a.>.b', 1);
    }

    public function testAQueueGroupWithASpaceIsRefused(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        Commands::subscribe('a', 1, 'two words');
    }

    public function testHeaderNamesMustBeTokensAndValuesSingleLines(): void
    {
        try {
            Headers::of(['Bad Name' => 'x']);
            self::fail('a name with a space was accepted');
        } catch (\InvalidArgumentException) {
        }
        $this->expectException(\InvalidArgumentException::class);
        Headers::of(['X' => "a\r\nInjected: 1"]);
    }

    public function testHeadersRoundTripThroughTheirBlock(): void
    {
        $headers = Headers::of(['A' => 'one', 'B' => ['x', 'y: z']]);
        $decoded = Headers::decode($headers->encode());

        self::assertSame($headers->all(), $decoded->all());
        self::assertNull($decoded->status);
        self::assertSame('two', $headers->with('A', 'two')->get('A'));
    }

    public function testAHeaderLineWithoutColonIsAProtocolError(): void
    {
        $this->expectException(ProtocolException::class);
        Headers::decode("NATS/1.0\r\nnocolon\r\n\r\n");
    }
}
