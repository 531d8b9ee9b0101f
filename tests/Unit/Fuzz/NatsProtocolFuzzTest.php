<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Fuzz;

use Bobbin\Nats\Exception\ProtocolException;
use Bobbin\Nats\Internal\ProtocolParser;
use Bobbin\Tests\Support\Fuzz\Fuzzer;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * Hostile NATS server frames: random bytes and protocol-looking text, mutated frames (headers
 * included), every truncation, sizes up to 2^64. Fed whole and in pieces, each ends the same
 * way: frames, or a ProtocolException, in bounded time and memory.
 */
final class NatsProtocolFuzzTest extends TestCase
{
    private const MAX_PAYLOAD = 1024 * 1024;

    /** @return list<string> */
    public static function corpus(): array
    {
        return [
            "INFO {\"server_id\":\"N1\",\"version\":\"2.9.10\",\"headers\":true,\"max_payload\":1048576,\"connect_urls\":[\"a:4222\"]}\r\n",
            "PING\r\n", "PONG\r\n", "+OK\r\n", "-ERR 'Authorization Violation'\r\n",
            "MSG orders.new 7 5\r\nhello\r\n", "MSG orders.new 7 _INBOX.abc.1 0\r\n\r\n",
            "HMSG orders.new 9 _INBOX.x 22 27\r\nNATS/1.0\r\nA: b\r\nC:\r\n\r\nhello\r\n",
            "HMSG _INBOX.r.1 3 16 16\r\nNATS/1.0 503\r\n\r\n\r\n",
            "HMSG js.pull 4 49 49\r\nNATS/1.0 408 Request Timeout\r\nNats-Pending: 1\r\n\r\n\r\n",
        ];
    }

    /**
     * @param list<string> $pieces
     * @return array{list<mixed>, ?\Throwable}
     */
    private static function feed(array $pieces): array
    {
        $parser = new ProtocolParser(self::MAX_PAYLOAD, 4096);
        $frames = [];
        try {
            foreach ($pieces as $piece) {
                $parser->append($piece);
                while (($frame = $parser->next()) !== null) {
                    $frames[] = $frame;
                }
            }
        } catch (\Throwable $e) {
            return [$frames, $e];
        }

        return [$frames, null];
    }

    public function testRandomBytesGiveFramesOrAProtocolException(): void
    {
        $fuzzer = new Fuzzer(__METHOD__);
        $words = ['MSG ', 'HMSG ', 'INFO ', 'PING', 'PONG', '+OK', '-ERR ', "\r\n", 'NATS/1.0', ': ', '{"a":', '}', ' 5 ', ' 0 ', ' 99999999999 '];
        for ($case = 0; $case < $fuzzer->cases; $case++) {
            $input = match ($fuzzer->int(0, 2)) {
                0 => $fuzzer->randomInput(),
                1 => $fuzzer->textInput("MSGHINFOPNKER+-{}:\" \t\r\n0123456789.abc_"),
                default => \implode('', \array_map(static fn (): string => $fuzzer->pick($words), \range(0, $fuzzer->int(0, 20)))),
            };
            $fuzzer->checkStream($input, self::feed(...), ProtocolException::class);
        }
        self::assertSame($fuzzer->cases, $fuzzer->checked());
    }

    public function testMutatedFramesGiveFramesOrAProtocolException(): void
    {
        $fuzzer = new Fuzzer(__METHOD__);
        $corpus = self::corpus();
        for ($case = 0; $case < $fuzzer->cases; $case++) {
            $fuzzer->checkStream($fuzzer->mutate($fuzzer->pick($corpus) . $fuzzer->pick($corpus), $corpus), self::feed(...), ProtocolException::class);
        }
        self::assertSame($fuzzer->cases, $fuzzer->checked());
    }

    public function testEveryTruncationOfEveryValidFrameWaitsForMore(): void
    {
        $fuzzer = new Fuzzer(__METHOD__);
        foreach (self::corpus() as $valid) {
            self::assertCount(1, $fuzzer->checkStream($valid, self::feed(...), ProtocolException::class), $valid);
            for ($length = 0; $length < \strlen($valid); $length++) {
                $prefix = \substr($valid, 0, $length);
                if ($fuzzer->checkStream($prefix, self::feed(...), ProtocolException::class) !== []) {
                    $fuzzer->fail($prefix, 'a truncated frame gave a value');
                }
            }
        }
        self::assertGreaterThan(400, $fuzzer->checked());
    }

    /** @return iterable<string, array{string}> */
    public static function hugeSizes(): iterable
    {
        foreach (['2^20 + 1' => '1048577', '2^60' => '1152921504606846976', '2^63 - 1' => '9223372036854775807', '2^64' => '18446744073709551616', 'negative' => '-5'] as $name => $size) {
            yield "MSG of $name bytes" => ["MSG s 1 $size\r\nabc"];
            yield "HMSG of $name bytes" => ["HMSG s 1 12 $size\r\nNATS/1.0\r\n\r\nabc"];
            yield "HMSG with $name bytes of headers" => ["HMSG s 1 $size 20\r\nNATS/1.0\r\n\r\nabc"];
        }
        yield 'a sid past 2^64' => ["MSG s 18446744073709551616 1\r\nx\r\n"];
        yield 'a control line of a megabyte without its end' => ['INFO ' . \str_repeat('x', 1024 * 1024)];
        yield 'INFO nested deeper than JSON may' => ['INFO ' . \str_repeat('[', 100_000) . "\r\n"];
    }

    #[DataProvider('hugeSizes')]
    public function testASizeUpTo2Pow64AllocatesNothingBeforeItsBytes(string $bytes): void
    {
        $fuzzer = new Fuzzer(__METHOD__);
        $fuzzer->checkStream($bytes, self::feed(...), ProtocolException::class, 4 * \strlen($bytes) + 1024 * 1024);

        self::assertSame(1, $fuzzer->checked());
    }
}
