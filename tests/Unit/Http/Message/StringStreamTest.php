<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Http\Message;

use Bobbin\Http\Message\StringStream;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class StringStreamTest extends TestCase
{
    public function testReadingMovesThePositionUntilTheEnd(): void
    {
        $stream = new StringStream('hello world');

        self::assertTrue($stream->isReadable());
        self::assertSame('hello', $stream->read(5));
        self::assertSame(5, $stream->tell());
        self::assertFalse($stream->eof());
        self::assertSame(' world', $stream->read(100));
        self::assertTrue($stream->eof());
        self::assertSame('', $stream->read(10));
        self::assertSame('', $stream->read(0));
    }

    public function testANegativeReadLengthIsRefused(): void
    {
        $this->expectException(\RuntimeException::class);

        (new StringStream('abc'))->read(-1);
    }

    public function testGetContentsReturnsTheRestFromThePosition(): void
    {
        $stream = new StringStream('hello world');
        $stream->seek(6);

        self::assertSame('world', $stream->getContents());
        self::assertTrue($stream->eof());
        self::assertSame('', $stream->getContents());
    }

    public function testCastingToStringReturnsEverythingWhateverThePosition(): void
    {
        $stream = new StringStream('hello world');
        $stream->read(3);

        self::assertSame('hello world', (string) $stream);
        self::assertTrue($stream->eof(), 'PSR-7: read to the end');
    }

    public function testContentsGivesTheWholeStringWithoutMovingThePosition(): void
    {
        $stream = new StringStream('hello world');
        $stream->read(3);

        self::assertSame('hello world', $stream->contents());
        self::assertSame(3, $stream->tell());
    }

    public function testSeekingFromTheStartTheCurrentPositionAndTheEnd(): void
    {
        $stream = new StringStream('0123456789');

        self::assertTrue($stream->isSeekable());
        $stream->seek(4);
        self::assertSame(4, $stream->tell());
        $stream->seek(2, \SEEK_CUR);
        self::assertSame('6', $stream->read(1));
        $stream->seek(-3, \SEEK_END);
        self::assertSame('789', $stream->getContents());
        $stream->rewind();
        self::assertSame(0, $stream->tell());
    }

    public function testSeekingBeforeTheStartFails(): void
    {
        $stream = new StringStream('abc');

        $this->expectException(\RuntimeException::class);

        $stream->seek(-1);
    }

    public function testAnUnknownWhenceFails(): void
    {
        $this->expectException(\RuntimeException::class);

        (new StringStream('abc'))->seek(0, 42);
    }

    public function testWritingAppendsAtTheEndAndGrowsTheSize(): void
    {
        $stream = new StringStream();

        self::assertTrue($stream->isWritable());
        self::assertSame(0, $stream->getSize());
        self::assertSame(5, $stream->write('hello'));
        self::assertSame(6, $stream->write(' world'));
        self::assertSame(11, $stream->getSize());
        self::assertSame(11, $stream->tell());
        self::assertSame('hello world', (string) $stream);
    }

    public function testWritingInTheMiddleOverwritesLikeAFileOpenedForUpdate(): void
    {
        $stream = new StringStream('hello world');
        $stream->seek(6);
        $stream->write('there, world');

        self::assertSame('hello there, world', (string) $stream);
        $stream->seek(0);
        $stream->write('J');
        self::assertSame('Jello there, world', $stream->contents());
        self::assertSame(1, $stream->tell());
    }

    public function testWritingBeyondTheEndFillsTheGapWithNulBytes(): void
    {
        $stream = new StringStream('ab');
        $stream->seek(4);
        $stream->write('c');

        self::assertSame("ab\0\0c", $stream->contents());
        self::assertSame(5, $stream->getSize());
    }

    public function testTheEndIsReachedOnlyAfterReadingTheLastByte(): void
    {
        $stream = new StringStream('ab');

        self::assertFalse($stream->eof());
        $stream->read(2);
        self::assertTrue($stream->eof());
        self::assertTrue((new StringStream(''))->eof());
    }

    public function testDetachingReturnsNoResourceAndLeavesTheStreamUnusable(): void
    {
        $stream = new StringStream('secret');

        self::assertNull($stream->detach());
        self::assertNull($stream->getSize());
        self::assertFalse($stream->isReadable());
        self::assertFalse($stream->isWritable());
        self::assertFalse($stream->isSeekable());
        self::assertTrue($stream->eof());
        self::assertSame('', (string) $stream);
        self::assertSame([], $stream->getMetadata());
        self::assertNull($stream->getMetadata('mode'));
        self::assertNull($stream->detach(), 'a second detach is harmless');
    }

    /** @return iterable<string, array{\Closure(StringStream): mixed}> */
    public static function operationsOnAnUnusableStream(): iterable
    {
        yield 'read' => [static fn (StringStream $s): mixed => $s->read(1)];
        yield 'write' => [static fn (StringStream $s): mixed => $s->write('x')];
        yield 'seek' => [static fn (StringStream $s): mixed => $s->seek(0)];
        yield 'rewind' => [static fn (StringStream $s): mixed => $s->rewind()];
        yield 'tell' => [static fn (StringStream $s): mixed => $s->tell()];
        yield 'getContents' => [static fn (StringStream $s): mixed => $s->getContents()];
        yield 'contents' => [static fn (StringStream $s): mixed => $s->contents()];
    }

    /** @param \Closure(StringStream): mixed $operation */
    #[DataProvider('operationsOnAnUnusableStream')]
    public function testEveryOperationOnAClosedStreamFails(\Closure $operation): void
    {
        $stream = new StringStream('data');
        $stream->close();

        $this->expectException(\RuntimeException::class);

        $operation($stream);
    }

    public function testMetadataLooksLikeAMemoryStream(): void
    {
        $stream = new StringStream('abc');
        $metadata = $stream->getMetadata();

        self::assertIsArray($metadata);
        self::assertSame('MEMORY', $metadata['stream_type']);
        self::assertTrue($metadata['seekable']);
        self::assertFalse($metadata['eof']);
        self::assertSame('w+b', $stream->getMetadata('mode'));
        self::assertNull($stream->getMetadata('no such key'));
        $stream->getContents();
        self::assertTrue($stream->getMetadata('eof'));
    }
}
