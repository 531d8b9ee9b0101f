<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Http\Message;

use Bobbin\Http\Message\EventStream;
use Bobbin\Http\Message\GeneratorStream;
use Bobbin\Http\Message\ServerSentEvent;
use PHPUnit\Framework\TestCase;

final class GeneratorStreamTest extends TestCase
{
    public function testEachReadGivesTheNextYieldedPieceAndEmptyOnesAreSkipped(): void
    {
        $stream = new GeneratorStream(static function (): \Generator {
            yield 'one';
            yield '';
            yield 'two';
        });

        self::assertNull($stream->getSize());
        self::assertFalse($stream->isSeekable());
        self::assertFalse($stream->eof());
        self::assertSame('one', $stream->read(100));
        self::assertSame('two', $stream->read(100));
        self::assertSame('', $stream->read(100));
        self::assertTrue($stream->eof());
        self::assertSame(6, $stream->tell());
    }

    public function testAPieceLongerThanTheReadIsGivenInParts(): void
    {
        $stream = new GeneratorStream(['abcdef', 'g']);

        self::assertSame('abcd', $stream->read(4));
        self::assertSame('ef', $stream->read(4));
        self::assertSame('g', $stream->read(4));
        self::assertSame('', $stream->read(4));
        self::assertTrue($stream->eof());
    }

    public function testTheGeneratorStartsAtTheFirstReadNotWhenTheStreamIsMade(): void
    {
        $started = false;
        $stream = new GeneratorStream(static function () use (&$started): \Generator {
            $started = true;
            yield 'x';
        });

        self::assertFalse($started);
        self::assertSame('x', (string) $stream);
        self::assertTrue($started);
    }

    public function testClosingTheStreamRunsTheGeneratorsFinallyAndEndsIt(): void
    {
        $cleaned = false;
        $stream = new GeneratorStream(static function () use (&$cleaned): \Generator {
            try {
                yield 'first';
                yield 'never';
            } finally {
                $cleaned = true;
            }
        });
        $stream->read(10);

        $stream->close();

        self::assertTrue($cleaned);
        self::assertTrue($stream->eof());
        self::assertSame('', $stream->read(10));
    }

    public function testAYieldThatIsNoStringIsRefused(): void
    {
        $stream = new GeneratorStream([42]);

        $this->expectException(\UnexpectedValueException::class);
        $stream->read(10);
    }

    public function testServerSentEventsAreFormattedAsAnEventSourceReadsThem(): void
    {
        self::assertSame("data: hello\n\n", (string) new ServerSentEvent('hello'));
        self::assertSame("event: price\nid: 7\nretry: 1500\ndata: line 1\ndata: line 2\ndata: line 3\n\n", (string) new ServerSentEvent("line 1\r\nline 2\nline 3", 'price', '7', 1500));
        self::assertSame(": keep alive\n\n", (string) ServerSentEvent::comment("keep\nalive"));
    }

    public function testAnEventTypeOrIdWithALineBreakIsRefused(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        new ServerSentEvent('data', "evil\nevent: other");
    }

    public function testAnEventStreamFormatsStringsEventsAndOtherValuesAsItGoes(): void
    {
        $response = EventStream::response(static function (): \Generator {
            yield 'plain';
            yield new ServerSentEvent('typed', 'update');
            yield ['price' => 3];
            yield ServerSentEvent::comment('ping');
        });

        self::assertSame('text/event-stream', $response->getHeaderLine('Content-Type'));
        self::assertSame('no-cache', $response->getHeaderLine('Cache-Control'));
        self::assertSame('no', $response->getHeaderLine('X-Accel-Buffering'));
        self::assertSame("data: plain\n\nevent: update\ndata: typed\n\ndata: {\"price\":3}\n\n: ping\n\n", (string) $response->getBody());
    }
}
