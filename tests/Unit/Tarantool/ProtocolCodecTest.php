<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Tarantool;

use Bobbin\MessagePack\Decoder;
use Bobbin\MessagePack\Encoder;
use Bobbin\Tarantool\Exception\ProtocolException;
use Bobbin\Tarantool\Internal\ChapSha1;
use Bobbin\Tarantool\Internal\FrameParser;
use Bobbin\Tarantool\Internal\Greeting;
use Bobbin\Tarantool\Internal\Iproto;
use Bobbin\Tarantool\Internal\RequestEncoder;
use Bobbin\Tarantool\Internal\SqlDecoder;
use PHPUnit\Framework\TestCase;

/** The IPROTO codecs byte by byte, without a socket. */
final class ProtocolCodecTest extends TestCase
{
    private static function greeting(string $first, string $salt): string
    {
        return \str_pad($first, 63) . "\n" . \str_pad($salt, 63) . "\n";
    }

    public function testAGreetingGivesTheVersionTheInstanceAndTheSalt(): void
    {
        $salt = \random_bytes(32);
        $greeting = Greeting::parse(self::greeting('Tarantool 2.6.0 (Binary) 1255ce03-ce51-4992-8a50-6529cc426649', \base64_encode($salt)));

        self::assertSame('2.6.0', $greeting->version);
        self::assertSame('Binary', $greeting->protocol);
        self::assertSame('1255ce03-ce51-4992-8a50-6529cc426649', $greeting->instanceUuid);
        self::assertSame($salt, $greeting->salt);
        self::assertTrue($greeting->atLeast('2.6.0'));
        self::assertFalse($greeting->atLeast('2.10.0'));
        self::assertTrue(Greeting::parse(self::greeting('Tarantool 2.11.1-0-g96877bd (Binary) x', \base64_encode($salt)))->atLeast('2.10.0'));
    }

    public function testAGreetingWithoutAValidSaltIsRefused(): void
    {
        $this->expectException(ProtocolException::class);
        $this->expectExceptionMessage('no valid salt');
        Greeting::parse(self::greeting('Tarantool 2.6.0 (Binary) x', 'not base64 !!'));
    }

    public function testTheChapSha1ScramblePassesTheServersCheck(): void
    {
        $salt = \random_bytes(32);
        $scramble = ChapSha1::scramble('secret', $salt);
        // The server keeps sha1(sha1(password)) and checks: sha1(scramble XOR sha1(salt . stored)) === stored.
        $stored = \sha1(\sha1('secret', true), true);

        self::assertSame(20, \strlen($scramble));
        self::assertSame($stored, \sha1($scramble ^ \sha1(\substr($salt, 0, 20) . $stored, true), true));
        self::assertNotSame($scramble, ChapSha1::scramble('secret', \random_bytes(32)));
    }

    public function testAFrameIsItsLengthAsUint32ThenTheHeaderThenTheBody(): void
    {
        self::assertSame('ce00000006' . '820040' . '0107' . '80', \bin2hex((new RequestEncoder(new Encoder()))->frame(Iproto::PING, 7, "\x80")));
        self::assertSame('ce0000000a' . '830001' . '01cd0100' . '0550' . '90', \bin2hex((new RequestEncoder(new Encoder()))->frame(Iproto::SELECT, 256, "\x90", 80)));
        self::assertSame('ce0000000a' . '84000e' . '0101' . '0505' . '0a2a' . '80', \bin2hex((new RequestEncoder(new Encoder()))->frame(Iproto::BEGIN, 1, "\x80", 5, 42)));
    }

    public function testRequestBodiesCarryTheProtocolsKeys(): void
    {
        $encoder = new RequestEncoder(new Encoder());

        self::assertSame('86' . '10cd0200' . '1101' . '120a' . '1305' . '1402' . '2091a161', \bin2hex($encoder->select(512, 1, ['a'], 10, 5, 2)));
        self::assertSame('82' . '1010' . '219201a178', \bin2hex($encoder->tuple(16, [1, 'x'])));
        self::assertSame('84' . '1010' . '1100' . '209101' . '219193a12b0205', \bin2hex($encoder->update(16, 0, [1], [['+', 2, 5]])));
        self::assertSame('83' . '1010' . '219101' . '289193a12d0201', \bin2hex($encoder->upsert(16, [1], [['-', 2, 1]])));
        self::assertSame('83' . '1010' . '1101' . '209101', \bin2hex($encoder->delete(16, 1, [1])));
        self::assertSame('82' . '22a166' . '219101', \bin2hex($encoder->call('f', [1])));
        self::assertSame('82' . '27a8' . \bin2hex('return 1') . '2190', \bin2hex($encoder->evaluate('return 1', [])));
        self::assertSame('82' . '40a8' . \bin2hex('SELECT ?') . '419101', \bin2hex($encoder->execute('SELECT ?', [1])));
        self::assertSame('82' . '432a' . '419101', \bin2hex($encoder->execute(42, [1])));
        self::assertSame('81' . '40a8' . \bin2hex('SELECT 1'), \bin2hex($encoder->prepare('SELECT 1')));
        self::assertSame('81' . '432a', \bin2hex($encoder->unprepare(42)));
        self::assertSame('82' . '23a175' . '2192a9' . \bin2hex('chap-sha1') . 'a3' . \bin2hex('abc'), \bin2hex($encoder->auth('u', 'abc')));
        self::assertSame('80', \bin2hex($encoder->begin(null)));
        self::assertSame('81' . '56cb' . '4004000000000000', \bin2hex($encoder->begin(2.5)));
    }

    public function testARequestOfAStreamCarriesItsStreamIdInTheHeader(): void
    {
        self::assertSame('ce00000008' . '83' . '000e' . '0107' . '0a03' . '80', \bin2hex((new RequestEncoder(new Encoder()))->frame(0x0e, 7, "\x80", 0, 3)));
    }

    public function testFramesArriveInPiecesAndComeOutWhole(): void
    {
        $parser = new FrameParser(new Decoder());
        $first = self::answer(0, 1, "\x81\x30\x91\x01");
        $second = self::answer(0x80, 2, "\x81\x30\x91\xa1x");
        $bytes = $first . $second;
        $parser->append(\substr($bytes, 0, 3));
        self::assertNull($parser->next());
        $parser->append(\substr($bytes, 3, \strlen($first)));

        $response = $parser->next();
        self::assertNotNull($response);
        self::assertSame([1, 0, [1], 80], [$response->sync, $response->type, $response->data(), $response->schemaVersion]);
        self::assertNull($parser->next());
        $parser->append(\substr($bytes, 3 + \strlen($first)));
        $push = $parser->next();
        self::assertNotNull($push);
        self::assertTrue($push->isPush());
        self::assertSame(['x'], $push->data());
        self::assertNull($parser->next());
        self::assertSame(0, $parser->pending());
    }

    public function testAnErrorAnswerCarriesItsCode(): void
    {
        $parser = new FrameParser(new Decoder());
        $parser->append(self::answer(0x8003, 9, "\x81\x31\xa3dup"));
        $response = $parser->next();

        self::assertNotNull($response);
        self::assertTrue($response->isError());
        self::assertSame(3, $response->errorCode());
    }

    public function testShorterLengthFormsAreAccepted(): void
    {
        $parser = new FrameParser(new Decoder());
        $header = "\x82\x00\x00\x01\x05";
        $parser->append(\chr(\strlen($header) + 1) . $header . "\x80" . "\xcc" . \chr(\strlen($header)) . $header);

        self::assertSame(5, $parser->next()?->sync);
        self::assertSame(5, $parser->next()?->sync);
    }

    public function testHeadersOfEveryUintFormAndKeyOrderReadAlike(): void
    {
        // Read in place when each value is a uint, by the decoder when not (an int of another
        // kind under a key the client does not read): both give the same answer.
        $encoder = new Encoder();
        foreach ([[0, 1, 80, 7], [0x8003, 200, 300, -1], [0x80, 70_000, 4_000_000_000, 7], [0, \PHP_INT_MAX, 1, 7], [0, \PHP_INT_MAX, 1, -1]] as [$type, $sync, $schema, $other]) {
            $entries = [
                "\x00" . $encoder->encode($type),
                "\x05" . $encoder->encode($schema),
                "\x09" . $encoder->encode($other),
                "\x01" . $encoder->encode($sync),
            ];
            foreach ([\implode('', $entries), \implode('', \array_reverse($entries))] as $header) {
                foreach (["\x81\x30\x91\x01", ''] as $body) {
                    $parser = new FrameParser(new Decoder());
                    $frame = "\x84" . $header . $body;
                    $parser->append("\xce" . \pack('N', \strlen($frame)) . $frame);
                    $response = $parser->next();

                    self::assertNotNull($response);
                    self::assertSame([$type, $sync, $schema], [$response->type, $response->sync, $response->schemaVersion]);
                    self::assertSame($body === '' ? [] : [1], $response->data());
                }
            }
        }
    }

    public function testAHeaderWithoutASyncIdIsAProtocolError(): void
    {
        $parser = new FrameParser(new Decoder());
        $parser->append("\xce\x00\x00\x00\x03\x81\x00\x00");

        $this->expectException(ProtocolException::class);
        $this->expectExceptionMessage('without a type and a sync id');
        $parser->next();
    }

    public function testABodyThatIsNotAMapSpoilsOnlyItsFrame(): void
    {
        $parser = new FrameParser(new Decoder());
        $parser->append(self::answer(0, 1, "\x01") . self::answer(0, 2, "\x81\x30\xc1") . self::answer(0, 3, "\x80\x80") . self::answer(0, 4, "\x80"));

        self::assertSame('the body is not a map', $parser->next()?->malformed);
        self::assertStringContainsString('0xc1', (string) $parser->next()?->malformed);
        self::assertSame('1 bytes follow the body', $parser->next()?->malformed);
        self::assertNull($parser->next()?->malformed);
    }

    public function testNamedSqlParametersBecomeOneEntryMaps(): void
    {
        self::assertSame([1, 'a'], SqlDecoder::bindings([1, 'a']));
        self::assertSame([[':id' => 1], ['@x' => 2], ['$y' => 3]], SqlDecoder::bindings(['id' => 1, '@x' => 2, '$y' => 3]));
        self::assertSame('92' . '81a33a696401' . '81a2407802', \bin2hex((new Encoder())->encode(SqlDecoder::bindings(['id' => 1, '@x' => 2]))));
    }

    private static function answer(int $type, int $sync, string $body): string
    {
        $header = (new Encoder())->encode([0 => $type, 1 => $sync, 5 => 80]);

        return "\xce" . \pack('N', \strlen($header) + \strlen($body)) . $header . $body;
    }
}
