<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Http;

use Bobbin\Http\ProtocolException;
use Bobbin\Http\RequestParser;
use Bobbin\Http\SharedRequestHeads;
use PHPUnit\Framework\TestCase;

/** The parsers of one server's connections share the heads they parsed (SharedRequestHeads). */
final class SharedRequestHeadsTest extends TestCase
{
    private const HEAD = "GET /a?b=1 HTTP/1.1\r\nHost: example.test\r\nAccept: */*\r\n\r\n";

    private static function parser(SharedRequestHeads $shared, int $maxHeaderCount = 100): RequestParser
    {
        return new RequestParser(maxHeaderCount: $maxHeaderCount, shared: $shared);
    }

    public function testAHeadParsedOnOneConnectionServesAnotherConnectionThatSendsTheSameBytes(): void
    {
        $shared = new SharedRequestHeads();
        $first = self::parser($shared);
        $second = self::parser($shared);
        $first->buffer = self::HEAD;
        $second->buffer = self::HEAD;

        $parsed = $first->nextHead();
        $reused = $second->nextHead();

        self::assertNotNull($parsed);
        self::assertSame($parsed, $reused);
        self::assertSame('', $second->buffer);
        self::assertSame(['example.test'], $reused->headers['Host']);
        self::assertCount(1, $shared->byBytes);
    }

    public function testOtherBytesAreParsedForThemselves(): void
    {
        $shared = new SharedRequestHeads();
        $first = self::parser($shared);
        $second = self::parser($shared);
        $first->buffer = self::HEAD;
        $second->buffer = \str_replace('/a?b=1', '/c', self::HEAD);

        $a = $first->nextHead();
        $c = $second->nextHead();

        self::assertNotNull($a);
        self::assertNotNull($c);
        self::assertSame('/a?b=1', $a->target);
        self::assertSame('/c', $c->target);
        self::assertCount(2, $shared->byBytes);
    }

    public function testAHeadWithABodyOrFollowedByMoreBytesIsNotTakenFromTheSharedHeads(): void
    {
        $shared = new SharedRequestHeads();
        $post = "POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n";
        $first = self::parser($shared);
        $first->buffer = $post;
        self::assertNotNull($first->nextHead());
        $second = self::parser($shared);
        $second->buffer = $post . 'ok';

        $head = $second->nextHead();

        self::assertNotNull($head);
        self::assertSame('ok', $second->readBody($head), 'the body that came with the head was lost');
    }

    public function testTheLimitsOfAServerAreNotSkippedThroughAnotherServersHeads(): void
    {
        // One SharedRequestHeads per server (ServerContext): a stricter server parses for itself.
        $lenient = self::parser(new SharedRequestHeads());
        $strict = self::parser(new SharedRequestHeads(), 1);
        $lenient->buffer = self::HEAD;
        $strict->buffer = self::HEAD;
        self::assertNotNull($lenient->nextHead());

        $this->expectException(ProtocolException::class);
        $strict->nextHead();
    }

    public function testAtMostKeptHeadsAreKept(): void
    {
        $shared = new SharedRequestHeads();
        $parser = self::parser($shared);
        for ($i = 0; $i <= SharedRequestHeads::KEPT; $i++) {
            $parser->buffer = "GET /$i HTTP/1.1\r\nHost: x\r\n\r\n";
            self::assertNotNull($parser->nextHead());
            self::assertLessThanOrEqual(SharedRequestHeads::KEPT, \count($shared->byBytes));
        }
        self::assertCount(1, $shared->byBytes, 'a full set is forgotten at once, then the newest kept');
    }
}
