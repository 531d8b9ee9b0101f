<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\MessagePack;

use Bobbin\MessagePack\Binary;
use Bobbin\MessagePack\Decoder;
use Bobbin\MessagePack\Encoder;
use Bobbin\MessagePack\Ext;
use Bobbin\MessagePack\Extension\BoxError;
use Bobbin\MessagePack\Extension\Decimal;
use Bobbin\MessagePack\Extension\Uuid;
use Bobbin\MessagePack\MessagePackException;
use Bobbin\MessagePack\UInt64;
use PHPUnit\Framework\TestCase;

/** Bad bytes are a MessagePackException with a reason, never a PHP warning or a wrong value. */
final class MalformedInputTest extends TestCase
{
    public function testEveryTruncationOfAValueIsAClearError(): void
    {
        $bytes = (new Encoder())->encode([
            'int' => [1, 200, 70000, 5000000000, -5, -200, -70000, -5000000000],
            'float' => 1.25,
            'str' => [\str_repeat('s', 40), \str_repeat('s', 300)],
            'bin' => new Binary("\x00\x01"),
            'nested' => [[], ['k' => null, 'b' => true]],
            'ext' => [new Ext(7, 'abcdefgh'), new Ext(7, 'abc'), new Decimal('-1.5'), new Uuid('6e4e8bcb-8d8f-4a6c-9d5c-8a0b0f0a5f1e')],
            'uint64' => new UInt64('18446744073709551615'),
        ]);
        $decoder = new Decoder();
        for ($length = 0; $length < \strlen($bytes); $length++) {
            try {
                $decoder->decode(\substr($bytes, 0, $length));
                self::fail("$length of " . \strlen($bytes) . ' bytes decoded without an error');
            } catch (MessagePackException $e) {
                self::assertMatchesRegularExpression('/^Truncated MessagePack: \d+ bytes needed at offset \d+, \d+ left$/', $e->getMessage());
            }
        }
        self::assertIsArray($decoder->decode($bytes));
    }

    public function testTheNeverUsedTypeByteIsRejected(): void
    {
        $this->expectException(MessagePackException::class);
        $this->expectExceptionMessage('0xc1 at offset 1 is not a MessagePack type');
        (new Decoder())->decode("\x91\xc1");
    }

    public function testBytesAfterTheValueAreRejected(): void
    {
        $this->expectException(MessagePackException::class);
        $this->expectExceptionMessage('2 bytes follow the MessagePack value');
        (new Decoder())->decode("\x01\x02\x03");
    }

    public function testAMapKeyThatCannotBeAPhpArrayKeyIsRejected(): void
    {
        $this->expectException(MessagePackException::class);
        $this->expectExceptionMessage('A map key at offset 1 is a array');
        (new Decoder())->decode("\x81\x90\x01");
    }

    public function testAnArrayClaimingMoreElementsThanTheBufferHoldsFailsWithoutAllocatingThem(): void
    {
        $this->expectException(MessagePackException::class);
        (new Decoder())->decode("\xdd\xff\xff\xff\xff\x01");
    }

    public function testAnEndBeyondTheBufferIsAProgrammingError(): void
    {
        $offset = 0;
        $this->expectException(\ValueError::class);
        (new Decoder())->decodeAt("\x01", $offset, 5);
    }

    public function testMalformedExtensionPayloadsAreRejected(): void
    {
        $decoder = new Decoder();
        foreach ([
            'uuid of 4 bytes' => "\xd6\x02abcd",
            'decimal with a letter digit' => "\xd5\x01\x00\xac",
            'decimal with a digit for a sign' => "\xd5\x01\x00\x11",
            'decimal without digits' => "\xd4\x01\x00",
            'datetime of 4 bytes' => "\xd6\x04abcd",
            'error without a stack' => "\xd5\x03\x80\x00",
        ] as $case => $bytes) {
            try {
                $decoder->decode($bytes);
                self::fail("$case decoded");
            } catch (MessagePackException $e) {
                self::assertNotSame('', $e->getMessage());
            }
        }
    }

    public function testValuesMessagePackCannotCarryAreRejectedWhenEncoding(): void
    {
        $encoder = new Encoder();
        foreach ([new \stdClass(), \fopen('php://memory', 'r')] as $value) {
            try {
                $encoder->encode($value);
                self::fail(\get_debug_type($value) . ' encoded');
            } catch (MessagePackException $e) {
                self::assertStringContainsString(\get_debug_type($value) === 'stdClass' ? 'stdClass' : 'resource', $e->getMessage());
            }
        }
    }

    public function testWrappersRefuseWhatTheyCannotHold(): void
    {
        foreach ([
            static fn () => new UInt64('18446744073709551616'),
            static fn () => new UInt64('-1'),
            static fn () => new Ext(128, ''),
            static fn () => new Decimal('1e5'),
            static fn () => new Uuid('not-a-uuid'),
        ] as $make) {
            try {
                $make();
                self::fail('accepted');
            } catch (\ValueError) {
                $this->addToAssertionCount(1);
            }
        }
    }

    public function testAnErrorStackIsReadFromItsMap(): void
    {
        $this->expectException(\UnexpectedValueException::class);
        BoxError::fromMap([0 => 'not a list']);
    }
}
