<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Http\Legacy;

use Bobbin\Http\Legacy\ScriptRequestFrame;
use PHPUnit\Framework\TestCase;

final class ScriptRequestFrameTest extends TestCase
{
    public function testTheVariablesAndTheBodyLengthAreLaidOutByteByByte(): void
    {
        $bytes = ScriptRequestFrame::head(['REQUEST_METHOD' => 'GET', 'SERVER_PORT' => 8080], 5);

        self::assertSame(
            "\x00\x00\x00\x34" // the block: 52 bytes
            . "\x00\x00\x00\x02" // two variables
            . "\x00\x00\x00\x0eREQUEST_METHOD\x00\x00\x00\x03GET"
            . "\x00\x00\x00\x0bSERVER_PORT\x00\x00\x00\x048080"
            . "\x00\x00\x00\x00\x00\x00\x00\x05", // the body's length
            $bytes,
        );
    }

    public function testValuesThatAreNotScalarsAreLeftOutAndBinaryValuesKeptWhole(): void
    {
        $bytes = ScriptRequestFrame::head(['argv' => ['x'], 'HTTP_X' => "a\0b", 'HTTPS' => true], 0);

        self::assertSame(
            \pack('NN', 4 + 4 + 6 + 4 + 3 + 4 + 5 + 4 + 1, 2)
            . "\x00\x00\x00\x06HTTP_X\x00\x00\x00\x03a\0b"
            . "\x00\x00\x00\x05HTTPS\x00\x00\x00\x011"
            . \str_repeat("\x00", 8),
            $bytes,
        );
    }

    public function testNoVariablesMakeABlockOfJustItsCount(): void
    {
        self::assertSame("\x00\x00\x00\x04\x00\x00\x00\x00" . \pack('J', 1 << 33), ScriptRequestFrame::head([], 1 << 33));
    }
}
