<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Fuzz;

use Bobbin\Redis\Exception\ProtocolException;
use Bobbin\Redis\Internal\RespParser;
use Bobbin\Tests\Support\Fuzz\Fuzzer;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * Hostile RESP2/RESP3 (what a server, or anything posing as one, may send): random bytes and
 * RESP-looking text, mutated replies, every truncation, lengths and counts up to 2^64, nesting
 * thousands deep. Fed whole and in pieces, each ends the same way: replies, or a
 * ProtocolException, in bounded time and memory.
 */
final class RespFuzzTest extends TestCase
{
    /** @return list<string> one valid reply of each kind */
    public static function corpus(): array
    {
        return [
            "+OK\r\n", "-ERR unknown command 'x'\r\n", ":-9223372036854775808\r\n", ":+42\r\n",
            "\$5\r\nhello\r\n", "\$0\r\n\r\n", "\$-1\r\n", "*-1\r\n", "_\r\n", "#t\r\n", ",-1.5e10\r\n", ",inf\r\n",
            "(3492890328409238509324850943850943825024385\r\n", "!21\r\nSYNTAX invalid syntax\r\n", "=15\r\ntxt:Some string\r\n",
            "*3\r\n:1\r\n\$3\r\nfoo\r\n*2\r\n+a\r\n_\r\n", "%2\r\n+first\r\n:1\r\n\$6\r\nsecond\r\n~2\r\n#f\r\n,3.14\r\n",
            ">3\r\n+message\r\n+channel\r\n\$7\r\npayload\r\n", "|1\r\n+ttl\r\n:3600\r\n\$2\r\nok\r\n",
            "*2\r\n*2\r\n*2\r\n:1\r\n:2\r\n%1\r\n:3\r\n:4\r\n*0\r\n", "%0\r\n", "~0\r\n", ">0\r\n",
        ];
    }

    /**
     * @param list<string> $pieces
     * @return array{list<mixed>, ?\Throwable}
     */
    private static function feed(array $pieces): array
    {
        $parser = new RespParser(maxBulkLength: 1024 * 1024, maxLineLength: 64 * 1024);
        $replies = [];
        try {
            foreach ($pieces as $piece) {
                $parser->append($piece);
                while ($parser->next()) {
                    $replies[] = $parser->reply;
                }
            }
        } catch (\Throwable $e) {
            return [$replies, $e];
        }

        return [$replies, null];
    }

    /** @return list<mixed> */
    private static function whole(string $bytes): array
    {
        [$replies, $error] = self::feed([$bytes]);

        return $error === null ? $replies : throw $error;
    }

    public function testRandomBytesGiveRepliesOrAProtocolException(): void
    {
        $fuzzer = new Fuzzer(__METHOD__);
        for ($case = 0; $case < $fuzzer->cases; $case++) {
            $input = $fuzzer->chance(50) ? $fuzzer->randomInput() : $fuzzer->textInput("+-:\$*%~>|_#,(!=\r\n\r\n0123456789-?.tfinax ");
            $fuzzer->checkStream($input, self::feed(...), ProtocolException::class);
        }
        self::assertSame($fuzzer->cases, $fuzzer->checked());
    }

    public function testMutatedRepliesGiveRepliesOrAProtocolException(): void
    {
        $fuzzer = new Fuzzer(__METHOD__);
        $corpus = self::corpus();
        for ($case = 0; $case < $fuzzer->cases; $case++) {
            $fuzzer->checkStream($fuzzer->mutate($fuzzer->pick($corpus) . $fuzzer->pick($corpus), $corpus), self::feed(...), ProtocolException::class);
        }
        self::assertSame($fuzzer->cases, $fuzzer->checked());
    }

    public function testEveryTruncationOfEveryValidReplyWaitsForMore(): void
    {
        $fuzzer = new Fuzzer(__METHOD__);
        foreach (self::corpus() as $valid) {
            self::assertCount(1, $fuzzer->checkStream($valid, self::feed(...), ProtocolException::class), \bin2hex($valid));
            for ($length = 0; $length < \strlen($valid); $length++) {
                $prefix = \substr($valid, 0, $length);
                if ($fuzzer->checkStream($prefix, self::feed(...), ProtocolException::class) !== []) {
                    $fuzzer->fail($prefix, 'a truncated reply gave a value');
                }
            }
        }
        self::assertGreaterThan(400, $fuzzer->checked());
    }

    /** @return iterable<string, array{string}> */
    public static function hugeLengths(): iterable
    {
        foreach (['$', '=', '!'] as $type) {
            yield "$type claiming 2^60 bytes" => ["{$type}1152921504606846976\r\nabc"];
            yield "$type claiming 2^63 - 1 bytes" => ["{$type}9223372036854775807\r\nabc"];
            yield "$type claiming 2^64 bytes" => ["{$type}18446744073709551616\r\nabc"];
            yield "$type claiming -2^63 bytes" => ["{$type}-9223372036854775808\r\nabc"];
        }
        foreach (['*', '~', '>', '%', '|'] as $type) {
            yield "$type counting 2^60" => ["{$type}1152921504606846976\r\n:1\r\n"];
            yield "$type counting 2^62" => ["{$type}4611686018427387904\r\n:1\r\n"];
            yield "$type counting 2^63 - 1" => ["{$type}9223372036854775807\r\n:1\r\n"];
            yield "$type counting 2^64" => ["{$type}18446744073709551616\r\n:1\r\n"];
            yield "$type counting -2^63" => ["{$type}-9223372036854775808\r\n:1\r\n"];
        }
        yield 'an integer past 2^63' => [":9223372036854775808\r\n"];
        yield 'a line of a megabyte without its end' => ['+' . \str_repeat('x', 1024 * 1024)];
    }

    #[DataProvider('hugeLengths')]
    public function testALengthOrCountUpTo2Pow64AllocatesNothingBeforeItsBytes(string $bytes): void
    {
        $fuzzer = new Fuzzer(__METHOD__);
        $fuzzer->checkStream($bytes, self::feed(...), ProtocolException::class, 4 * \strlen($bytes) + 1024 * 1024);

        self::assertSame(1, $fuzzer->checked());
    }

    public function testNestingPastTheLimitIsAClearErrorAtAnyDepth(): void
    {
        $fuzzer = new Fuzzer(__METHOD__);
        foreach (["*1\r\n", "%1\r\n+k\r\n", ">1\r\n", "~1\r\n", "|1\r\n+k\r\n:1\r\n*1\r\n"] as $opener) {
            foreach ([129, 5_000, 50_000] as $depth) {
                $outcome = $fuzzer->check(\str_repeat($opener, $depth) . ":1\r\n", self::whole(...), ProtocolException::class);
                self::assertInstanceOf(ProtocolException::class, $outcome);
                self::assertStringContainsString('nests deeper than 128 levels', $outcome->getMessage());
            }
        }
    }
}
