<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Fuzz;

use Bobbin\Mysql\Exception\ConnectException;
use Bobbin\Mysql\Exception\ProtocolException;
use Bobbin\Mysql\Internal\Authentication;
use Bobbin\Mysql\Internal\PacketBuffer;
use Bobbin\Mysql\Internal\Protocol;
use Bobbin\Mysql\Internal\ResponseReader;
use Bobbin\Mysql\Internal\ServerError;
use Bobbin\Mysql\Internal\ServerGreeting;
use Bobbin\Mysql\Internal\Wire;
use Bobbin\Tests\Support\Fuzz\Fuzzer;
use Bobbin\Tests\Unit\Mysql\ResponseReaderTest;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * A hostile MySQL server: the packets of a response (framing and sequence numbers, OK, ERR,
 * result sets in text and binary rows, prepare answers) read by PacketBuffer and ResponseReader
 * as a connection does, and the greeting and error packets of the handshake — random, mutated,
 * truncated at every byte, with length-encoded integers up to 2^64. Each ends in a response or
 * a ProtocolException, in bounded time and memory.
 */
final class MysqlPacketFuzzTest extends TestCase
{
    /**
     * Responses, each with the reader settings it is read with: binary rows, CLIENT_DEPRECATE_EOF,
     * MariaDB's extended metadata, JSON decoding, a prepare.
     *
     * @return list<array{array{bool, bool, bool, bool, bool}, list<string>}>
     */
    public static function corpus(): array
    {
        $column = ResponseReaderTest::column(...);
        $ok = static fn (int $status = 2, string $header = "\x00"): string => $header . "\x01\x05" . \pack('vv', $status, 0);
        $eof = "\xfe\x00\x00\x02\x00";
        $types = [
            $column('id', Protocol::TYPE_LONG), $column('big', Protocol::TYPE_LONGLONG, Protocol::FLAG_UNSIGNED), $column('t', Protocol::TYPE_TINY),
            $column('s', Protocol::TYPE_SHORT), $column('d', Protocol::TYPE_DOUBLE), $column('f', Protocol::TYPE_FLOAT, 0, 2),
            $column('at', Protocol::TYPE_DATETIME, 0, 6), $column('dur', Protocol::TYPE_TIME, 0, 3), $column('name', Protocol::TYPE_VAR_STRING),
            $column('bits', Protocol::TYPE_BIT), $column('doc', Protocol::TYPE_JSON), $column('day', Protocol::TYPE_DATE),
        ];
        $binaryRow = "\x00" . "\x00\x10" // header, NULL bitmap: the 11th column (doc) is NULL
            . \pack('V', 0xfffffff6) . \pack('P', -1) . "\x85" . \pack('v', 0x8000) . \pack('e', 2.5) . \pack('g', 1.25)
            . "\x0b" . \pack('vCCCCCV', 2024, 2, 29, 12, 34, 56, 789012) . "\x0c" . \pack('CVCCCV', 1, 2, 3, 4, 5, 6000)
            . "\x05hello" . "\x02\x01\x00" . "\x04" . \pack('vCC', 1999, 12, 31);
        $textRow = "\x0242" . "\x14" . "18446744073709551615" . "\xfb" . "\x01x";

        return [
            [[false, true, false, false, false], [$ok()]],
            [[false, true, false, false, false], ["\xff\x28\x04#42000You have an error in your SQL syntax"]],
            [[false, true, false, false, false], ["\xfb/etc/passwd"]],
            [[false, true, false, false, false], [$ok(Protocol::SERVER_MORE_RESULTS_EXISTS | 2), $ok()]],
            [[false, true, false, true, false], ["\x04", $column('a', Protocol::TYPE_LONG), $column('b', Protocol::TYPE_LONGLONG, Protocol::FLAG_UNSIGNED), $column('c', Protocol::TYPE_VAR_STRING), $column('j', Protocol::TYPE_JSON), "\x011" . "\x14" . "18446744073709551615" . "\xfb" . "\x07{\"a\":1}", $ok(2, "\xfe")]],
            [[false, false, false, false, false], ["\x03", $column('a', Protocol::TYPE_LONG), $column('b', Protocol::TYPE_LONGLONG, Protocol::FLAG_UNSIGNED), $column('c', Protocol::TYPE_VAR_STRING), $eof, "\x011" . \substr($textRow, 3), $eof]],
            [[false, true, true, true, false], ["\x01", $column('j', Protocol::TYPE_BLOB, 0, 0, 45, 'json'), "\x02[]", $ok(2, "\xfe")]],
            [[true, true, false, true, false], [\chr(\count($types)), ...$types, $binaryRow, $ok(2, "\xfe")]],
            [[true, true, false, false, true], ["\x00" . \pack('VvvCv', 7, 2, 1, 0, 0), $column('?', Protocol::TYPE_VAR_STRING), $column('a', Protocol::TYPE_LONG), $column('b', Protocol::TYPE_LONG)]],
            [[true, false, false, false, true], ["\x00" . \pack('VvvCv', 7, 1, 1, 0, 0), $column('?', Protocol::TYPE_VAR_STRING), $eof, $column('a', Protocol::TYPE_LONG), $eof]],
        ];
    }

    /** @param array<int, string> $payloads framed, in order, as the server sends them after a command: sequence 1, 2, 3… */
    private static function framed(array $payloads): string
    {
        $packets = new PacketBuffer();
        $packets->frame(''); // the command
        $bytes = '';
        foreach ($payloads as $payload) {
            $bytes .= $packets->frame($payload);
        }

        return $bytes;
    }

    /**
     * @param array{bool, bool, bool, bool, bool} $settings
     * @return \Closure(list<string>): array{list<mixed>, ?\Throwable}
     */
    private static function reader(array $settings): \Closure
    {
        return static function (array $pieces) use ($settings): array {
            [$binary, $deprecateEof, $extended, $json, $prepare] = $settings;
            $packets = new PacketBuffer();
            $packets->frame(''); // the command took sequence 0
            $reader = new ResponseReader($binary, $deprecateEof, $extended, $json, $prepare);
            $seen = [];
            try {
                foreach ($pieces as $piece) {
                    $packets->append($piece);
                    while (($payload = $packets->next()) !== null) {
                        $seen[] = $reader->accept($payload);
                    }
                }
            } catch (\Throwable $e) {
                return [$seen, $e];
            }
            $seen[] = [$reader->results(), $reader->columns(), $reader->error, $reader->status, $reader->localInfileRequest, $reader->statementId];

            return [$seen, null];
        };
    }

    public function testRandomPacketsGiveAResponseOrAProtocolException(): void
    {
        $fuzzer = new Fuzzer(__METHOD__);
        $corpus = self::corpus();
        for ($case = 0; $case < $fuzzer->cases; $case++) {
            [$settings] = $fuzzer->pick($corpus);
            // Well framed random payloads reach the reader; random bytes test the framing.
            $input = $fuzzer->chance(70)
                ? self::framed(\array_map(static fn (): string => $fuzzer->randomInput(64), \range(0, $fuzzer->int(0, 6))))
                : $fuzzer->randomInput();
            $fuzzer->checkStream($input, self::reader($settings), ProtocolException::class);
        }
        self::assertSame($fuzzer->cases, $fuzzer->checked());
    }

    public function testMutatedResponsesGiveAResponseOrAProtocolException(): void
    {
        $fuzzer = new Fuzzer(__METHOD__);
        $corpus = self::corpus();
        $payloads = \array_merge(...\array_column($corpus, 1));
        for ($case = 0; $case < $fuzzer->cases; $case++) {
            [$settings, $packets] = $fuzzer->pick($corpus);
            if ($fuzzer->chance(70)) {
                // One packet mutated and framed right: the reader's own rules.
                $at = $fuzzer->int(0, \count($packets) - 1);
                $packets[$at] = $fuzzer->mutate($packets[$at], $payloads);
                $input = self::framed($packets);
            } else {
                $input = $fuzzer->mutate(self::framed($packets));
            }
            $fuzzer->checkStream($input, self::reader($settings), ProtocolException::class);
        }
        self::assertSame($fuzzer->cases, $fuzzer->checked());
    }

    public function testEveryTruncationOfEveryPacketIsAProtocolExceptionOrAShorterValue(): void
    {
        $fuzzer = new Fuzzer(__METHOD__);
        foreach (self::corpus() as [$settings, $packets]) {
            $whole = self::framed($packets);
            self::assertNotInstanceOf(\Throwable::class, $fuzzer->checkStream($whole, self::reader($settings), ProtocolException::class));
            // The stream cut anywhere: it waits for the rest.
            for ($length = 0; $length < \strlen($whole); $length++) {
                $fuzzer->checkStream(\substr($whole, 0, $length), self::reader($settings), ProtocolException::class);
            }
            // Each packet cut anywhere but framed as whole: what a server that lies about its packet sends.
            foreach ($packets as $at => $packet) {
                for ($length = 0; $length < \strlen($packet); $length++) {
                    $cut = $packets;
                    $cut[$at] = \substr($packet, 0, $length);
                    $fuzzer->checkStream(self::framed($cut), self::reader($settings), ProtocolException::class);
                }
            }
        }
        self::assertGreaterThan(2000, $fuzzer->checked());
    }

    /** @return iterable<string, array{array{bool, bool, bool, bool, bool}, string}> */
    public static function hugeLengths(): iterable
    {
        $text = [false, true, false, false, false];
        $binary = [true, true, false, false, false];
        $column = ResponseReaderTest::column('a', Protocol::TYPE_VAR_STRING);
        $max = "\xfe\xff\xff\xff\xff\xff\xff\xff\xff";
        $above63 = "\xfe\x00\x00\x00\x00\x00\x00\x00\x80";
        $at60 = "\xfe\x00\x00\x00\x00\x00\x00\x00\x10";
        foreach (['2^64 - 1' => $max, '2^63' => $above63, '2^60' => $at60] as $name => $length) {
            yield "a column count of $name" => [$text, self::framed([$length])];
            yield "a text value of $name bytes" => [$text, self::framed(["\x01", $column, $length . 'abc'])];
            yield "a binary value of $name bytes" => [$binary, self::framed(["\x01", $column, "\x00\x00" . $length . 'abc'])];
            yield "a column name of $name bytes" => [$text, self::framed(["\x01", "\x03def\x00\x00\x00" . $length . 'abc'])];
            yield "affected rows of $name" => [$text, self::framed(["\x00" . $length . "\x00\x02\x00\x00\x00"])];
        }
        yield 'a packet claiming 16 MiB - 2, not arrived' => [$text, "\xfe\xff\xff\x01\x00"];
        yield 'a split packet whose continuation never comes' => [$text, "\xff\xff\xff\x01\x00\x01\x02"];
        yield 'a prepare answer claiming 65535 columns and parameters' => [[true, true, false, false, true], self::framed(["\x00" . \pack('VvvCv', 1, 0xffff, 0xffff, 0, 0)])];
    }

    /** @param array{bool, bool, bool, bool, bool} $settings */
    #[DataProvider('hugeLengths')]
    public function testALengthUpTo2Pow64AllocatesNothingBeforeItsBytes(array $settings, string $bytes): void
    {
        $fuzzer = new Fuzzer(__METHOD__);
        $fuzzer->checkStream($bytes, self::reader($settings), ProtocolException::class, 1024 * 1024);

        self::assertSame(1, $fuzzer->checked());
    }

    public function testTheHandshakesGreetingAndErrorPacketsParseOrAreAProtocolException(): void
    {
        $fuzzer = new Fuzzer(__METHOD__);
        $greetings = [
            "\x0a" . "5.5.5-10.11.19-MariaDB\0" . \pack('V', 42) . 'abcdefgh' . "\0" . \pack('v', 0xf7fe) . "\x2d" . \pack('v', 0x0002)
                . \pack('v', 0x81ff) . "\x15" . \str_repeat("\0", 6) . \pack('V', 0x1d) . 'ijklmnopqrst' . "\0" . "mysql_native_password\0",
            "\x0a" . "8.0.36\0" . \pack('V', 7) . 'abcdefgh' . "\0" . \pack('v', 0xffff) . "\xff" . \pack('v', 0x0002) . \pack('v', 0xdfff)
                . "\x15" . \str_repeat("\0", 10) . 'ijklmnopqrst' . "\0" . "caching_sha2_password\0",
            "\x0a" . "4.1\0" . \pack('V', 1) . 'abcdefgh' . "\0" . \pack('v', 0x0200),
        ];
        $errors = ["\xff\x15\x04#28000Access denied for user 'x'@'h'", "\xff\x10\x04Too many connections"];
        $greeting = static fn (string $bytes): ServerGreeting => ServerGreeting::parse($bytes);
        $error = static fn (string $bytes): ServerError => ServerError::parse($bytes);
        for ($case = 0; $case < $fuzzer->cases; $case++) {
            $fuzzer->check($fuzzer->chance(20) ? $fuzzer->randomInput(128) : $fuzzer->mutate($fuzzer->pick($greetings), $greetings), $greeting, ProtocolException::class);
            $fuzzer->check($fuzzer->chance(20) ? "\xff" . $fuzzer->randomInput(64) : $fuzzer->mutate($fuzzer->pick($errors)), $error, ProtocolException::class);
        }
        foreach ([...$greetings, ...$errors] as $valid) {
            for ($length = 0; $length <= \strlen($valid); $length++) {
                $fuzzer->check(\substr($valid, 0, $length), $valid[0] === "\xff" ? $error : $greeting, ProtocolException::class);
            }
        }
        self::assertGreaterThan(2 * $fuzzer->cases, $fuzzer->checked());
    }

    public function testEveryTruncationOfARowIsAProtocolExceptionNotAShorterValue(): void
    {
        $fuzzer = new Fuzzer(__METHOD__);
        // The text and the binary result sets of the corpus: a row cut anywhere, in a packet that says it is whole.
        foreach ([4 => 5, 7 => \count(self::corpus()[7][1]) - 2] as $entry => $rowAt) {
            [$settings, $packets] = self::corpus()[$entry];
            $row = $packets[$rowAt];
            for ($length = 1; $length < \strlen($row); $length++) {
                $cut = $packets;
                $cut[$rowAt] = \substr($row, 0, $length);
                if (\in_array($cut[$rowAt][0], ["\xfe", "\xff"], true)) {
                    continue; // not a row any more: the end of the result, an error
                }
                $outcome = $fuzzer->checkStream(self::framed($cut), self::reader($settings), ProtocolException::class);
                if (!$outcome instanceof ProtocolException) {
                    $fuzzer->fail(self::framed($cut), 'a row cut short decoded to values');
                }
            }
        }
        self::assertGreaterThan(40, $fuzzer->checked());
    }

    public function testAnEmptyNonceFromTheServerIsAConnectErrorNotADivisionByZero(): void
    {
        // An AuthSwitchRequest may carry any nonce; caching_sha2_password's RSA step masks the password with it.
        $fuzzer = new Fuzzer(__METHOD__);
        foreach (['', "\0", 'short'] as $nonce) {
            $fuzzer->check($nonce, static fn (string $nonce): string => Authentication::encryptPassword('secret', $nonce, 'not a key'), ConnectException::class);
        }

        self::assertSame(3, $fuzzer->checked());
    }

    public function testALengthEncodedIntegerOf2Pow63OrMoreIsRefusedNotReadAsNegative(): void
    {
        $offset = 0;

        $this->expectException(ProtocolException::class);
        Wire::readLengthEncodedString("\xfe\x00\x00\x00\x00\x00\x00\x00\x80" . 'abc', $offset);
    }
}
