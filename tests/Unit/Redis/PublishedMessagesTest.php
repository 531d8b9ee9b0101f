<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Redis;

use Bobbin\Redis\Exception\ProtocolException;
use Bobbin\Redis\Internal\Push;
use Bobbin\Redis\Internal\RespParser;
use Bobbin\Redis\Message;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/** RespParser::takeMessages(), the subscriber's fast path: what it takes, next() would have given. */
final class PublishedMessagesTest extends TestCase
{
    private const MESSAGE3 = ">3\r\n\$7\r\nmessage\r\n\$4\r\nnews\r\n\$5\r\nhello\r\n";
    private const MESSAGE2 = "*3\r\n\$7\r\nmessage\r\n\$4\r\nnews\r\n\$5\r\nhello\r\n";
    private const PMESSAGE = ">4\r\n\$8\r\npmessage\r\n\$3\r\na:*\r\n\$3\r\na:b\r\n\$0\r\n\r\n";
    private const SMESSAGE = ">3\r\n\$8\r\nsmessage\r\n\$5\r\norder\r\n\$4\r\n\r\n\0\xff\r\n";

    /**
     * Everything in the chunks as the subscriber sees it: messages from the fast path, every
     * other reply from next() as it is (a push's items).
     *
     * @param list<string> $chunks
     * @return list<mixed>
     */
    private static function fastPath(array $chunks, int $stitch = 65536): array
    {
        $parser = new RespParser(stitch: $stitch);
        $seen = [];
        foreach ($chunks as $chunk) {
            $parser->append($chunk);
            while (true) {
                $batch = [];
                $taken = $parser->takeMessages($batch);
                self::assertSame($batch === [], $taken === 0);
                \array_push($seen, ...$batch);
                if (!$parser->next()) {
                    break;
                }
                $seen[] = self::asEvent($parser->reply);
            }
        }
        self::assertFalse($parser->hasUnreadBytes());

        return $seen;
    }

    /**
     * The same through next() alone, a message push or array turned into the Message the subscriber makes of it.
     *
     * @return list<mixed>
     */
    private static function slowPath(string $bytes): array
    {
        $parser = new RespParser();
        $parser->append($bytes);
        $seen = [];
        while ($parser->next()) {
            $seen[] = self::asEvent($parser->reply);
        }

        return $seen;
    }

    private static function asEvent(mixed $reply): mixed
    {
        $items = $reply instanceof Push ? $reply->items : $reply;

        return match (\is_array($items) ? ($items[0] ?? null) : null) {
            'message' => new Message((string) $items[1], (string) $items[2]),
            'pmessage' => new Message((string) $items[2], (string) $items[3], (string) $items[1]),
            'smessage' => new Message((string) $items[1], (string) $items[2], null, true),
            default => $reply,
        };
    }

    public function testEachKindOfPublishedMessageOverBothProtocolsBecomesItsMessage(): void
    {
        self::assertEquals([
            new Message('news', 'hello'),
            new Message('news', 'hello'),
            new Message('a:b', '', 'a:*'),
            new Message('order', "\r\n\0\xff", null, true),
        ], self::fastPath([self::MESSAGE3 . self::MESSAGE2 . self::PMESSAGE . self::SMESSAGE]));
    }

    public function testMessagesAmongOtherRepliesCutAtEveryByteComeOutAsNextAloneGivesThem(): void
    {
        $other = ">3\r\n\$9\r\nsubscribe\r\n\$4\r\nnews\r\n:1\r\n+PONG\r\n*2\r\n\$4\r\npong\r\n\$0\r\n\r\n>2\r\n\$10\r\ninvalidate\r\n*1\r\n\$1\r\nk\r\n";
        $bytes = self::MESSAGE3 . $other . self::PMESSAGE . self::MESSAGE2 . self::SMESSAGE . self::MESSAGE3;
        $expected = self::slowPath($bytes);
        self::assertCount(9, $expected);
        for ($cut = 1; $cut < \strlen($bytes); $cut++) {
            self::assertEquals($expected, self::fastPath([\substr($bytes, 0, $cut), \substr($bytes, $cut)]), "cut at $cut");
        }
        self::assertEquals($expected, self::fastPath(\str_split($bytes)), 'one byte at a time');
    }

    public function testMessagesOfChannelsAndPayloadSizesThatChangeAndComeBackKeepTheirOwn(): void
    {
        $bytes = '';
        $expected = [];
        foreach (['a', 'bb', 'a', 'a', 'ab', 'bb'] as $i => $channel) {
            foreach (['', 'x', \str_repeat('y', 12), 'z'] as $j => $payload) {
                $payload .= $i . $j;
                $bytes .= \sprintf(">3\r\n\$7\r\nmessage\r\n\$%d\r\n%s\r\n\$%d\r\n%s\r\n", \strlen($channel), $channel, \strlen($payload), $payload);
                $bytes .= \sprintf(">4\r\n\$8\r\npmessage\r\n\$2\r\n%s*\r\n\$%d\r\n%s\r\n\$%d\r\n%s\r\n", $channel[0], \strlen($channel), $channel, \strlen($payload), $payload);
                $expected[] = new Message($channel, $payload);
                $expected[] = new Message($channel, $payload, $channel[0] . '*');
            }
        }
        self::assertEquals($expected, self::fastPath([$bytes]));
        self::assertEquals($expected, self::fastPath(\str_split($bytes, 7)));
    }

    public function testChunksJoinedToAPartialReplyByTheirHeadAloneGiveWhatOneBufferGives(): void
    {
        $bytes = self::MESSAGE3 . "*3\r\n:1\r\n\$40\r\n" . \str_repeat('b', 40) . "\r\n%1\r\n+k\r\n_\r\n" . self::PMESSAGE
            . ">3\r\n\$7\r\nmessage\r\n\$4\r\nnews\r\n\$60\r\n" . \str_repeat('p', 60) . "\r\n" . self::MESSAGE2 . "+PONG\r\n" . self::SMESSAGE . self::MESSAGE3;
        $expected = self::slowPath($bytes);
        foreach ([1, 2, 5, 16] as $stitch) {
            for ($cut = 1; $cut < \strlen($bytes); $cut++) {
                self::assertEquals($expected, self::fastPath([\substr($bytes, 0, $cut), \substr($bytes, $cut)], $stitch), "stitch $stitch, cut at $cut");
            }
            foreach ([7, 20, 64] as $size) {
                self::assertEquals($expected, self::fastPath(\str_split($bytes, $size), $stitch), "stitch $stitch, chunks of $size");
            }
        }
    }

    /** @return iterable<string, array{string}> */
    public static function oddShapes(): iterable
    {
        yield 'a null payload' => [">3\r\n\$7\r\nmessage\r\n\$4\r\nnews\r\n\$-1\r\n"];
        yield 'an integer payload' => [">3\r\n\$7\r\nmessage\r\n\$4\r\nnews\r\n:5\r\n"];
        yield 'a length with a plus sign' => [">3\r\n\$7\r\nmessage\r\n\$+4\r\nnews\r\n\$1\r\nx\r\n"];
        yield 'a length with leading zeros' => [">3\r\n\$7\r\nmessage\r\n\$004\r\nnews\r\n\$1\r\nx\r\n"];
        yield 'a simple-string kind' => [">3\r\n+message\r\n\$4\r\nnews\r\n\$1\r\nx\r\n"];
    }

    #[DataProvider('oddShapes')]
    public function testAMessageInAnotherShapeIsLeftToNextAndComesOutTheSame(string $bytes): void
    {
        self::assertEquals(self::slowPath($bytes), self::fastPath([$bytes]));
    }

    /** @return iterable<string, array{string, string}> */
    public static function malformed(): iterable
    {
        yield 'a payload longer than its length' => [">3\r\n\$7\r\nmessage\r\n\$4\r\nnews\r\n\$1\r\nxy\r\n", 'does not end with CRLF'];
        yield 'a negative length' => [">3\r\n\$7\r\nmessage\r\n\$-4\r\nnews\r\n\$1\r\nx\r\n", 'Invalid length -4'];
        yield 'an empty length' => [">3\r\n\$7\r\nmessage\r\n\$4\r\nnews\r\n\$\r\n\r\n", 'Invalid number'];
        yield 'a length that is no number' => [">3\r\n\$7\r\nmessage\r\n\$4x\r\nnews\r\n\$1\r\nx\r\n", 'Invalid number'];
    }

    #[DataProvider('malformed')]
    public function testAMalformedMessageIsTheProtocolErrorItAlwaysWas(string $bytes, string $error): void
    {
        $this->expectException(ProtocolException::class);
        $this->expectExceptionMessage($error);
        self::fastPath([self::MESSAGE3 . $bytes]);
    }

    public function testAPayloadOverTheBulkLimitIsRefusedAsAlways(): void
    {
        $parser = new RespParser(maxBulkLength: 4);
        $parser->append(">3\r\n\$7\r\nmessage\r\n\$4\r\nnews\r\n\$5\r\nhello\r\n");
        $batch = [];
        self::assertSame(0, $parser->takeMessages($batch));
        $this->expectException(ProtocolException::class);
        $this->expectExceptionMessage('over the limit of 4');
        $parser->next();
    }
}
