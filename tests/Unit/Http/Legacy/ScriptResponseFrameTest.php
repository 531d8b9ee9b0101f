<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Http\Legacy;

use Bobbin\Http\Legacy\ScriptResponseFrame;
use PHPUnit\Framework\TestCase;

final class ScriptResponseFrameTest extends TestCase
{
    public function testAFrameDecodesToTheResponseThatWasEncoded(): void
    {
        $frame = new ScriptResponseFrame(302, ['Location: /', 'Set-Cookie: a=1', ''], "body\0with binary \xff", 'Allowed memory size exhausted');

        $decoded = ScriptResponseFrame::decode($frame->encode());

        self::assertEquals($frame, $decoded);
    }

    public function testAFrameSayingMoreFollowsDecodesAsOneAndTwoFramesInARowAreReadApart(): void
    {
        $first = new ScriptResponseFrame(200, ['X-Streamed: yes'], 'first part', '', true);
        $last = new ScriptResponseFrame(0, [], 'second part');
        $bytes = $first->encode() . $last->encode();

        $length = (int) ScriptResponseFrame::expectedLength($bytes);

        self::assertEquals($first, ScriptResponseFrame::decode(\substr($bytes, 0, $length)));
        self::assertEquals($last, ScriptResponseFrame::decode(\substr($bytes, $length)));
    }

    public function testTheLengthIsKnownOnceTheEightBytesOfThePrefixHaveArrived(): void
    {
        $bytes = (new ScriptResponseFrame(200, [], 'hello'))->encode();

        self::assertNull(ScriptResponseFrame::expectedLength(\substr($bytes, 0, 7)));
        self::assertSame(\strlen($bytes), ScriptResponseFrame::expectedLength(\substr($bytes, 0, 8)));
    }

    public function testAFrameCutShortIsRefused(): void
    {
        $bytes = (new ScriptResponseFrame(200, ['X: y'], 'hello'))->encode();

        $this->expectException(\UnexpectedValueException::class);
        ScriptResponseFrame::decode(\substr($bytes, 0, -1));
    }

    public function testAHeaderLineLongerThanTheFrameIsRefused(): void
    {
        $payload = \pack('nCN', 200, 0, 1) . \pack('N', 1000) . 'short';

        $this->expectException(\UnexpectedValueException::class);
        ScriptResponseFrame::decode(\pack('J', \strlen($payload)) . $payload);
    }
}
