<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Nats;

use Bobbin\Nats\Exception\ProtocolException;
use Bobbin\Nats\Internal\FrameKind;
use Bobbin\Nats\Internal\ProtocolParser;
use Bobbin\Nats\Internal\ServerFrame;
use Bobbin\Nats\Message;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class ProtocolParserTest extends TestCase
{
    /** @return list<Message|ServerFrame> */
    private static function parseAll(string $bytes, bool $byteByByte = false, int $maxPayload = 1 << 20): array
    {
        $parser = new ProtocolParser($maxPayload, 256);
        $frames = [];
        foreach ($byteByByte ? \str_split($bytes) : [$bytes] as $chunk) {
            $parser->append($chunk);
            while (($frame = $parser->next()) !== null) {
                $frames[] = $frame;
            }
        }
        self::assertFalse($parser->hasPartialFrame(), 'nothing is left over');

        return $frames;
    }

    public function testInfoIsDecodedFromItsJsonBody(): void
    {
        [$info] = self::parseAll("INFO {\"server_id\":\"N1\",\"version\":\"2.9.10\",\"headers\":true,\"max_payload\":1048576}\r\n");

        self::assertInstanceOf(ServerFrame::class, $info);
        self::assertSame(FrameKind::Info, $info->kind);
        self::assertSame(['server_id' => 'N1', 'version' => '2.9.10', 'headers' => true, 'max_payload' => 1048576], $info->info);
    }

    public function testPingPongOkAndErrAreControlFramesInAnyCase(): void
    {
        $frames = self::parseAll("PING\r\npong\r\n+OK\r\n-ERR 'Authorization Violation'\r\n");

        self::assertSame([FrameKind::Ping, FrameKind::Pong, FrameKind::Ok, FrameKind::Err], \array_map(static fn (Message|ServerFrame $f) => $f instanceof ServerFrame ? $f->kind : null, $frames));
        self::assertInstanceOf(ServerFrame::class, $frames[3]);
        self::assertSame('Authorization Violation', $frames[3]->error);
    }

    public function testAMessageCarriesSubjectSidAndPayload(): void
    {
        [$message] = self::parseAll("MSG orders.new 7 11\r\nhello world\r\n");

        self::assertEquals(new Message('orders.new', 7, null, 'hello world'), $message);
    }

    public function testAMessageWithAReplySubject(): void
    {
        [$message] = self::parseAll("MSG svc.echo 1 _INBOX.abc.42 2\r\nhi\r\n");

        self::assertInstanceOf(Message::class, $message);
        self::assertSame('_INBOX.abc.42', $message->replyTo);
        self::assertSame('hi', $message->payload);
    }

    public function testAMessageLineWithTabsRepeatedSpacesOrLowerCaseReadsLikeThePlainOne(): void
    {
        $plain = self::parseAll("MSG svc.echo 1 _INBOX.abc.42 2\r\nhi\r\n");

        self::assertEquals($plain, self::parseAll("MSG\tsvc.echo 1\t_INBOX.abc.42  2\r\nhi\r\n"));
        self::assertEquals($plain, self::parseAll("msg svc.echo  1 _INBOX.abc.42 2 \r\nhi\r\n"));
        self::assertEquals(self::parseAll("MSG a 1 0\r\n\r\n"), self::parseAll("MSG  a 1 0\r\n\r\n"));
    }

    public function testAPayloadMayHoldCrlfAndBinaryBytes(): void
    {
        $payload = "a\r\nMSG x 1 3\r\n\0\xff";
        [$message] = self::parseAll('MSG s 3 ' . \strlen($payload) . "\r\n" . $payload . "\r\n");

        self::assertInstanceOf(Message::class, $message);
        self::assertSame($payload, $message->payload);
    }

    public function testAnEmptyPayload(): void
    {
        [$message] = self::parseAll("MSG s 3 0\r\n\r\n");

        self::assertInstanceOf(Message::class, $message);
        self::assertSame('', $message->payload);
    }

    public function testHmsgSplitsHeadersFromPayload(): void
    {
        $headers = "NATS/1.0\r\nNats-Msg-Id: job-1\r\nX-Two: a\r\nX-Two: b\r\n\r\n";
        [$message] = self::parseAll('HMSG jobs.run 9 _INBOX.r.1 ' . \strlen($headers) . ' ' . (\strlen($headers) + 4) . "\r\n" . $headers . "task\r\n");

        self::assertInstanceOf(Message::class, $message);
        self::assertSame('task', $message->payload);
        self::assertSame('_INBOX.r.1', $message->replyTo);
        self::assertSame('job-1', $message->header('Nats-Msg-Id'));
        self::assertSame('job-1', $message->header('nats-msg-id'), 'a lookup falls back to any case');
        self::assertSame(['Nats-Msg-Id' => ['job-1'], 'X-Two' => ['a', 'b']], $message->headers?->all());
        self::assertNull($message->status());
    }

    public function testAStatusOnlyHmsgIsTheServersNoRespondersAnswer(): void
    {
        [$message] = self::parseAll("HMSG _INBOX.r.5 2 16 16\r\nNATS/1.0 503\r\n\r\n\r\n");

        self::assertInstanceOf(Message::class, $message);
        self::assertSame(503, $message->status());
        self::assertSame('', $message->payload);
    }

    public function testAStatusWithADescription(): void
    {
        $block = "NATS/1.0 408 Request Timeout\r\nNats-Pending-Messages: 1\r\n\r\n";
        [$message] = self::parseAll('HMSG _INBOX.f 4 ' . \strlen($block) . ' ' . \strlen($block) . "\r\n" . $block . "\r\n");

        self::assertInstanceOf(Message::class, $message);
        self::assertSame(408, $message->status());
        self::assertSame('Request Timeout', $message->headers?->description);
        self::assertSame('1', $message->header('Nats-Pending-Messages'));
    }

    public function testFramesFedOneByteAtATimeComeOutTheSame(): void
    {
        $bytes = "INFO {\"a\":1}\r\nMSG s 1 _R 5\r\nab\r\nc\r\nPING\r\nHMSG t 2 12 14\r\nNATS/1.0\r\n\r\nok\r\n";

        self::assertEquals(self::parseAll($bytes), self::parseAll($bytes, true));
        self::assertCount(4, self::parseAll($bytes, true));
    }

    public function testAnIncompleteFrameWaitsForMoreBytes(): void
    {
        $parser = new ProtocolParser();
        $parser->append("MSG s 1 10\r\nhello");
        self::assertNull($parser->next());
        self::assertTrue($parser->hasPartialFrame());
        $parser->append("world\r");
        self::assertNull($parser->next(), 'the payload needs its CRLF too');
        $parser->append("\n");
        $message = $parser->next();
        self::assertInstanceOf(Message::class, $message);
        self::assertSame('helloworld', $message->payload);
    }

    /** @return iterable<string, array{string}> */
    public static function malformedFrames(): iterable
    {
        yield 'unknown operation' => ["HELLO there\r\n"];
        yield 'MSG without size' => ["MSG subject 1\r\n"];
        yield 'MSG with too many arguments' => ["MSG a 1 b c 2\r\nhi\r\n"];
        yield 'MSG with a negative size' => ["MSG a 1 -2\r\nhi\r\n"];
        yield 'MSG with a bad sid' => ["MSG a x 2\r\nhi\r\n"];
        yield 'payload not followed by CRLF' => ["MSG a 1 2\r\nhixx"];
        yield 'headers larger than the whole' => ["HMSG a 1 20 10\r\n0123456789\r\n"];
        yield 'header block without NATS/1.0' => ["HMSG a 1 4 4\r\nab\r\n\r\n"];
        yield 'INFO that is not JSON' => ["INFO {nope\r\n"];
        yield 'PING with arguments' => ["PING now\r\n"];
        yield 'a size beyond the limit' => ["MSG a 1 2000000\r\n"];
    }

    #[DataProvider('malformedFrames')]
    public function testAMalformedFrameIsAProtocolErrorNotAHang(string $bytes): void
    {
        $this->expectException(ProtocolException::class);
        self::parseAll($bytes);
    }

    public function testAControlLineWithoutEndBeyondTheLimitIsAnError(): void
    {
        $parser = new ProtocolParser(1 << 20, 256);
        $parser->append('MSG ' . \str_repeat('a', 300));
        $this->expectException(ProtocolException::class);
        $this->expectExceptionMessage('longer than 256 bytes');
        $parser->next();
    }
}
