<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Fuzz;

use Bobbin\MessagePack\Decoder;
use Bobbin\MessagePack\Encoder;
use Bobbin\MessagePack\Extension\BoxError;
use Bobbin\Tarantool\Exception\ProtocolException;
use Bobbin\Tarantool\Internal\ErrorFactory;
use Bobbin\Tarantool\Internal\FrameParser;
use Bobbin\Tarantool\Internal\Greeting;
use Bobbin\Tarantool\Internal\Iproto;
use Bobbin\Tarantool\Internal\SqlDecoder;
use Bobbin\Tests\Support\Fuzz\Fuzzer;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * A hostile Tarantool server: IPROTO frames (length, header, body) random, mutated and cut at
 * every byte, lengths up to 2^64, bodies nested thousands deep, then read as the client reads
 * them (data, an error answer, an SQL result, a prepared statement); and the greeting. Fed whole
 * and in pieces, each ends in responses or a ProtocolException, in bounded time and memory.
 */
final class IprotoFuzzTest extends TestCase
{
    /** @param array<int, mixed> $body */
    private static function frame(int $type, int $sync, array $body, int $schema = 80): string
    {
        $encoder = new Encoder();
        $bytes = $encoder->map([Iproto::REQUEST_TYPE => $type, Iproto::SYNC => $sync, Iproto::SCHEMA_VERSION => $schema]) . ($body === [] ? '' : $encoder->map($body));

        return "\xce" . \pack('N', \strlen($bytes)) . $bytes;
    }

    /** @return list<string> */
    public static function corpus(): array
    {
        $error = new BoxError('ClientError', "Duplicate key exists in unique index 'primary'", 3, 'memtx_tree.cc', 42, 0, ['space' => 'bench']);

        return [
            self::frame(Iproto::OK, 1, [Iproto::DATA => [[1, 'one', 1.5, null, true, [2, 3], ['k' => 'v']]]]),
            self::frame(Iproto::OK, 2, []),
            self::frame(Iproto::CHUNK, 3, [Iproto::DATA => ['pushed']]),
            self::frame(Iproto::TYPE_ERROR | 3, 4, [Iproto::ERROR_24 => "Duplicate key exists in unique index 'primary'", Iproto::ERROR => $error->toMap()]),
            self::frame(Iproto::OK, 5, [Iproto::METADATA => [[0 => 'ID', 1 => 'integer'], [0 => 'NAME', 1 => 'string']], Iproto::DATA => [[1, 'a'], [2, 'b']]]),
            self::frame(Iproto::OK, 6, [Iproto::SQL_INFO => [0 => 1, 1 => [7, 8]]]),
            self::frame(Iproto::OK, 7, [Iproto::STMT_ID => 99, Iproto::BIND_METADATA => [[0 => '?', 1 => 'ANY']], Iproto::METADATA => [[0 => 'X', 1 => 'integer']]]),
            "\x0c" . \substr(self::frame(Iproto::OK, 8, [Iproto::DATA => []]), 5), // a one-byte length, as a fixint
        ];
    }

    /**
     * Frames read, each then used as every caller could use it.
     *
     * @param list<string> $pieces
     * @return array{list<mixed>, ?\Throwable}
     */
    private static function feed(array $pieces): array
    {
        $parser = new FrameParser(new Decoder());
        $seen = [];
        try {
            foreach ($pieces as $piece) {
                $parser->append($piece);
                while (($response = $parser->next()) !== null) {
                    // Whether it is malformed, not why: the reason names an offset in the buffer, which depends on how the bytes arrived.
                    $seen[] = [$response->type, $response->sync, $response->schemaVersion, $response->malformed !== null, $response->isPush(), $response->data()];
                    if ($response->malformed !== null) {
                        continue; // the session refuses it as a ProtocolException of its own
                    }
                    if ($response->isError()) {
                        $error = ErrorFactory::fromResponse($response, 'fuzz');
                        $seen[] = [$error::class, $error->getMessage()];
                        continue;
                    }
                    $seen[] = SqlDecoder::result($response);
                    if (isset($response->body[Iproto::STMT_ID])) {
                        $seen[] = SqlDecoder::prepared('SELECT ?', $response);
                    }
                }
            }
        } catch (\Throwable $e) {
            return [$seen, $e];
        }

        return [$seen, null];
    }

    public function testRandomBytesGiveResponsesOrAProtocolException(): void
    {
        $fuzzer = new Fuzzer(__METHOD__);
        for ($case = 0; $case < $fuzzer->cases; $case++) {
            // Random bodies behind a plausible length and header now and then, so the readers of the body are reached.
            $input = $fuzzer->chance(50) ? $fuzzer->randomInput() : \substr(self::frame(0, 1, []), 0, 5) . $fuzzer->randomInput(128);
            if ($fuzzer->chance(50) && \strlen($input) > 5) {
                $input = "\xce" . \pack('N', \strlen($input) - 5) . \substr($input, 5);
            }
            $fuzzer->checkStream($input, self::feed(...), ProtocolException::class);
        }
        self::assertSame($fuzzer->cases, $fuzzer->checked());
    }

    public function testMutatedFramesGiveResponsesOrAProtocolException(): void
    {
        $fuzzer = new Fuzzer(__METHOD__);
        $corpus = self::corpus();
        for ($case = 0; $case < $fuzzer->cases; $case++) {
            $valid = $fuzzer->pick($corpus);
            // Mutated inside a frame whose length is right (the body's own rules), or length and all.
            $input = $fuzzer->chance(60) ? (static function (string $inside): string {
                return "\xce" . \pack('N', \strlen($inside)) . $inside;
            })($fuzzer->mutate(\substr($valid, $valid[0] === "\xce" ? 5 : 1))) : $fuzzer->mutate($valid . $fuzzer->pick($corpus), $corpus);
            $fuzzer->checkStream($input, self::feed(...), ProtocolException::class);
        }
        self::assertSame($fuzzer->cases, $fuzzer->checked());
    }

    public function testEveryTruncationOfEveryFrameWaitsForMore(): void
    {
        $fuzzer = new Fuzzer(__METHOD__);
        foreach (self::corpus() as $valid) {
            self::assertNotInstanceOf(\Throwable::class, $fuzzer->checkStream($valid, self::feed(...), ProtocolException::class));
            for ($length = 0; $length < \strlen($valid); $length++) {
                $prefix = \substr($valid, 0, $length);
                if ($fuzzer->checkStream($prefix, self::feed(...), ProtocolException::class) !== []) {
                    $fuzzer->fail($prefix, 'a truncated frame gave a response');
                }
                // The frame's inside cut short under a length that says it is whole.
                $inside = \substr($valid, 5, \max(0, $length - 5));
                $fuzzer->checkStream("\xce" . \pack('N', \strlen($inside)) . $inside, self::feed(...), ProtocolException::class);
            }
        }
        self::assertGreaterThan(600, $fuzzer->checked());
    }

    /** @return iterable<string, array{string}> */
    public static function hugeLengths(): iterable
    {
        yield 'a frame of 2^64 - 1 bytes' => ["\xcf\xff\xff\xff\xff\xff\xff\xff\xff\x82\x00\x00\x01\x01"];
        yield 'a frame of 2^63 - 1 bytes' => ["\xcf\x7f\xff\xff\xff\xff\xff\xff\xff\x82\x00\x00\x01\x01"];
        yield 'a frame of 2^60 bytes' => ["\xcf\x10\x00\x00\x00\x00\x00\x00\x00\x82\x00\x00\x01\x01"];
        yield 'a frame of 2^32 - 1 bytes' => ["\xce\xff\xff\xff\xff\x82\x00\x00\x01\x01"];
        yield 'a negative fixint as a length' => ["\xff\x82\x00\x00\x01\x01"];
        yield 'a str where a length is due' => ["\xa1x"];
        $header = "\x82\x00\x00\x01\x01";
        yield 'a body whose data array claims 2^32 - 1 tuples' => ["\xce" . \pack('N', 11 + 3) . $header . "\x81\x30\xdd\xff\xff\xff\xff" . "\x90\x90\x90"];
        $deep = $header . "\x81\x30" . \str_repeat("\x91", 100_000) . "\xc0";
        yield 'a body nested 100000 deep' => ["\xce" . \pack('N', \strlen($deep)) . $deep];
        $deepHeader = \str_repeat("\x91", 100_000) . "\xc0";
        yield 'a header nested 100000 deep' => ["\xce" . \pack('N', \strlen($deepHeader)) . $deepHeader];
    }

    #[DataProvider('hugeLengths')]
    public function testALengthUpTo2Pow64AllocatesNothingBeforeItsBytes(string $bytes): void
    {
        $fuzzer = new Fuzzer(__METHOD__);
        $fuzzer->checkStream($bytes, self::feed(...), ProtocolException::class, 1024 * 1024 + 64 * \strlen($bytes));

        self::assertSame(1, $fuzzer->checked());
    }

    public function testGreetingsParseOrAreAProtocolException(): void
    {
        $fuzzer = new Fuzzer(__METHOD__);
        $valid = \str_pad('Tarantool 2.11.1 (Binary) 7d5c4f63-5d1c-4a4b-9e5e-2b0e8e2a1c3d', 63) . "\n" . \str_pad(\base64_encode(\str_repeat("\x5a\xa5", 16)), 63) . "\n";
        $parse = static fn (string $bytes): Greeting => Greeting::parse($bytes);
        for ($case = 0; $case < $fuzzer->cases; $case++) {
            $fuzzer->check($fuzzer->chance(20) ? $fuzzer->randomInput(128) : $fuzzer->mutate($valid), $parse, ProtocolException::class);
        }
        for ($length = 0; $length < \strlen($valid); $length++) {
            self::assertInstanceOf(ProtocolException::class, $fuzzer->check(\substr($valid, 0, $length), $parse, ProtocolException::class));
        }
        self::assertInstanceOf(Greeting::class, $parse($valid));
    }
}
