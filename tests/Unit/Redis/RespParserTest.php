<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Redis;

use Bobbin\Redis\Exception\ProtocolException;
use Bobbin\Redis\Internal\ErrorReply;
use Bobbin\Redis\Internal\Push;
use Bobbin\Redis\Internal\RespParser;
use Bobbin\Redis\VerbatimString;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class RespParserTest extends TestCase
{
    /** @return list<mixed> every reply in $bytes */
    private static function parseAll(string $bytes, ?RespParser $parser = null): array
    {
        $parser ??= new RespParser();
        $parser->append($bytes);
        $replies = [];
        while ($parser->next()) {
            $replies[] = $parser->reply;
        }

        return $replies;
    }

    /** @return iterable<string, array{string, mixed}> */
    public static function scalars(): iterable
    {
        yield 'simple string' => ["+OK\r\n", 'OK'];
        yield 'empty simple string' => ["+\r\n", ''];
        yield 'integer' => [":1000\r\n", 1000];
        yield 'negative integer' => [":-42\r\n", -42];
        yield 'integer with a plus sign' => [":+7\r\n", 7];
        yield 'largest integer' => [":9223372036854775807\r\n", \PHP_INT_MAX];
        yield 'bulk string' => ["\$5\r\nhello\r\n", 'hello'];
        yield 'empty bulk string' => ["\$0\r\n\r\n", ''];
        yield 'binary bulk string with CRLF inside' => ["\$4\r\n\r\n\0\xff\r\n", "\r\n\0\xff"];
        yield 'RESP2 null bulk string' => ["\$-1\r\n", null];
        yield 'RESP2 null array' => ["*-1\r\n", null];
        yield 'RESP3 null' => ["_\r\n", null];
        yield 'true' => ["#t\r\n", true];
        yield 'false' => ["#f\r\n", false];
        yield 'double' => [",3.14\r\n", 3.14];
        yield 'double with exponent' => [",1.5e+20\r\n", 1.5e20];
        yield 'integral double' => [",10\r\n", 10.0];
        yield 'positive infinity' => [",inf\r\n", \INF];
        yield 'negative infinity' => [",-inf\r\n", -\INF];
        yield 'big number' => ["(3492890328409238509324850943850943825024385\r\n", '3492890328409238509324850943850943825024385'];
        yield 'negative big number' => ["(-3492890328409238509324850943850943825024385\r\n", '-3492890328409238509324850943850943825024385'];
        yield 'empty array' => ["*0\r\n", []];
        yield 'empty map' => ["%0\r\n", []];
        yield 'empty set' => ["~0\r\n", []];
    }

    #[DataProvider('scalars')]
    public function testEachReplyTypeBecomesItsPhpValue(string $bytes, mixed $expected): void
    {
        self::assertSame([$expected], self::parseAll($bytes));
    }

    public function testNotANumberStaysNotANumber(): void
    {
        $replies = self::parseAll(",nan\r\n");
        self::assertIsFloat($replies[0]);
        self::assertNan($replies[0]);
    }

    public function testAnErrorReplyIsAValueCarryingItsPrefix(): void
    {
        [$simple, $blob] = self::parseAll("-WRONGTYPE Operation against a key holding the wrong kind of value\r\n!21\r\nSYNTAX invalid syntax\r\n");

        self::assertInstanceOf(ErrorReply::class, $simple);
        self::assertSame('WRONGTYPE', $simple->prefix());
        self::assertSame('WRONGTYPE Operation against a key holding the wrong kind of value', $simple->message);
        self::assertInstanceOf(ErrorReply::class, $blob);
        self::assertSame('SYNTAX invalid syntax', $blob->message);
        self::assertSame('SYNTAX', $blob->prefix());
    }

    public function testAVerbatimStringKeepsItsFormat(): void
    {
        [$verbatim] = self::parseAll("=15\r\ntxt:Some string\r\n");

        self::assertInstanceOf(VerbatimString::class, $verbatim);
        self::assertSame('txt', $verbatim->format);
        self::assertSame('Some string', $verbatim->text);
        self::assertSame('Some string', (string) $verbatim);
    }

    public function testArraysNestAndHoldEveryType(): void
    {
        $bytes = "*4\r\n:1\r\n*2\r\n\$3\r\nfoo\r\n_\r\n-ERR inner\r\n*0\r\n";
        [$reply] = self::parseAll($bytes);

        self::assertIsArray($reply);
        self::assertSame(1, $reply[0]);
        self::assertSame(['foo', null], $reply[1]);
        self::assertInstanceOf(ErrorReply::class, $reply[2]);
        self::assertSame([], $reply[3]);
    }

    public function testAMapBecomesAnArrayKeyedByItsKeys(): void
    {
        $bytes = "%3\r\n+server\r\n\$5\r\nredis\r\n+proto\r\n:3\r\n+modules\r\n*0\r\n";

        self::assertSame([['server' => 'redis', 'proto' => 3, 'modules' => []]], self::parseAll($bytes));
    }

    public function testMapsNestInsideMaps(): void
    {
        $bytes = "%2\r\n+a\r\n%1\r\n+b\r\n:2\r\n+c\r\n#t\r\n";

        self::assertSame([['a' => ['b' => 2], 'c' => true]], self::parseAll($bytes));
    }

    public function testASetBecomesAList(): void
    {
        self::assertSame([['a', 'b', 'c']], self::parseAll("~3\r\n+a\r\n+b\r\n+c\r\n"));
    }

    public function testAttributesAreReadAndDropped(): void
    {
        $bytes = "|1\r\n+key-popularity\r\n%1\r\n\$1\r\na\r\n,0.19\r\n*2\r\n:2039123\r\n|1\r\n+ttl\r\n:3600\r\n:9543892\r\n";

        self::assertSame([[2039123, 9543892]], self::parseAll($bytes));
    }

    public function testATopLevelPushIsAPushAndNotAReply(): void
    {
        $bytes = ">2\r\n\$10\r\ninvalidate\r\n*1\r\n\$3\r\nfoo\r\n+OK\r\n>2\r\n\$10\r\ninvalidate\r\n_\r\n";
        [$push, $reply, $flush] = self::parseAll($bytes);

        self::assertInstanceOf(Push::class, $push);
        self::assertSame('invalidate', $push->kind());
        self::assertSame(['invalidate', ['foo']], $push->items);
        self::assertSame('OK', $reply);
        self::assertInstanceOf(Push::class, $flush);
        self::assertSame(['invalidate', null], $flush->items);
    }

    public function testManyRepliesInOneReadComeOutInOrder(): void
    {
        self::assertSame(['OK', 1, 'v', null], self::parseAll("+OK\r\n:1\r\n\$1\r\nv\r\n\$-1\r\n"));
    }

    public function testAReplyCutAtEveryByteComesOutWholeOnceComplete(): void
    {
        $bytes = "*3\r\n\$3\r\nfoo\r\n%1\r\n+k\r\n~2\r\n:1\r\n,2.5\r\n=8\r\ntxt:abcd\r\n+OK\r\n";
        $expected = self::parseAll($bytes);
        self::assertCount(2, $expected);
        for ($cut = 1; $cut < \strlen($bytes); $cut++) {
            $parser = new RespParser();
            $first = self::parseAll(\substr($bytes, 0, $cut), $parser);
            $rest = self::parseAll(\substr($bytes, $cut), $parser);
            self::assertEquals($expected, [...$first, ...$rest], "cut at byte $cut");
        }
    }

    public function testBytesArrivingOneAtATimeGiveTheSameReplies(): void
    {
        $bytes = "*2\r\n\$5\r\nhello\r\n*1\r\n:42\r\n:7\r\n";
        $parser = new RespParser();
        $replies = [];
        foreach (\str_split($bytes) as $byte) {
            \array_push($replies, ...self::parseAll($byte, $parser));
        }

        self::assertSame([['hello', [42]], 7], $replies);
        self::assertFalse($parser->hasUnreadBytes());
    }

    public function testAPartialReplyLeavesUnreadBytes(): void
    {
        $parser = new RespParser();
        $parser->append("*2\r\n:1\r\n");

        self::assertFalse($parser->next());
        self::assertTrue($parser->hasUnreadBytes());
    }

    /** @return iterable<string, array{string, string}> */
    public static function malformed(): iterable
    {
        yield 'unknown type byte' => ["?what\r\n", 'Unexpected byte 0x3f'];
        yield 'HTML instead of RESP' => ["<html>\r\n", 'Unexpected byte 0x3c'];
        yield 'not a number' => [":12a\r\n", 'Invalid number "12a"'];
        yield 'bulk without its CRLF' => ["\$3\r\nfooXY", 'does not end with CRLF'];
        yield 'negative bulk length' => ["\$-2\r\n", 'Invalid length -2'];
        yield 'negative map count' => ["%-1\r\n", 'Invalid count -1'];
        yield 'bad boolean' => ["#x\r\n", 'Invalid boolean "x"'];
        yield 'bad double' => [",1.2.3\r\n", 'Invalid double "1.2.3"'];
        yield 'bad big number' => ["(12x\r\n", 'Invalid big number'];
        yield 'null with content' => ["_x\r\n", 'null carries nothing'];
        yield 'streamed string' => ["\$?\r\n;4\r\nHell\r\n;0\r\n", 'Streamed "$" replies are not supported'];
        yield 'verbatim without format' => ["=3\r\nabc\r\n", 'three-letter format'];
        yield 'aggregate as a map key' => ["%1\r\n*1\r\n:1\r\n:2\r\n", 'map key that is not a scalar'];
    }

    #[DataProvider('malformed')]
    public function testAMalformedReplyIsAProtocolError(string $bytes, string $message): void
    {
        $this->expectException(ProtocolException::class);
        $this->expectExceptionMessage($message);
        self::parseAll($bytes);
    }

    public function testABulkLengthOverTheLimitIsRefusedBeforeItsBytesArrive(): void
    {
        $this->expectException(ProtocolException::class);
        $this->expectExceptionMessage('over the limit of 1024');
        self::parseAll("\$1025\r\n", new RespParser(maxBulkLength: 1024));
    }

    public function testALineWithoutEndOverTheLimitIsRefused(): void
    {
        $this->expectException(ProtocolException::class);
        $this->expectExceptionMessage('longer than 16 bytes');
        self::parseAll('+' . \str_repeat('a', 40), new RespParser(maxLineLength: 16));
    }

    public function testNestingDeeperThanTheLimitIsRefused(): void
    {
        $this->expectException(ProtocolException::class);
        $this->expectExceptionMessage('deeper than 3 levels');
        self::parseAll(\str_repeat("*1\r\n", 4) . ":1\r\n", new RespParser(maxDepth: 3));
    }
}
