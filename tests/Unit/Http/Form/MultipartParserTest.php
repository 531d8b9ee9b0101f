<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Http\Form;

use Bobbin\Http\Form\MalformedBodyException;
use Bobbin\Http\Form\MultipartParser;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/** multipart/form-data bodies split into parts, and the malformed ones refused. */
final class MultipartParserTest extends TestCase
{
    private const B = 'XyZ123';

    private static function body(string ...$parts): string
    {
        return '--' . self::B . "\r\n" . \implode("\r\n--" . self::B . "\r\n", $parts) . "\r\n--" . self::B . "--\r\n";
    }

    public function testFieldsAndFilesComeOutInOrderWithTheirNamesTypesAndExactBytes(): void
    {
        $binary = "\x00\r\n--not-the-boundary\r\n\xff";
        $parts = (new MultipartParser())->parse(self::body(
            "Content-Disposition: form-data; name=\"title\"\r\n\r\nHello\r\nWorld",
            "Content-Disposition: form-data; name=\"doc\"; filename=\"a b.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n" . $binary,
            "content-disposition: form-data; name=empty\r\n\r\n",
        ), self::B);

        self::assertCount(3, $parts);
        self::assertSame(['title', null, null, "Hello\r\nWorld"], [$parts[0]->name, $parts[0]->filename, $parts[0]->contentType, $parts[0]->content]);
        self::assertSame(['doc', 'a b.bin', 'application/octet-stream', $binary], [$parts[1]->name, $parts[1]->filename, $parts[1]->contentType, $parts[1]->content]);
        self::assertTrue($parts[1]->isFile());
        self::assertSame(['empty', ''], [$parts[2]->name, $parts[2]->content]);
    }

    public function testAPreambleAndAnEpilogueAreIgnored(): void
    {
        $body = "This is a preamble.\r\n" . self::body("Content-Disposition: form-data; name=\"a\"\r\n\r\n1") . 'epilogue';

        $parts = (new MultipartParser())->parse($body, self::B);

        self::assertSame(['a' => '1'], [$parts[0]->name => $parts[0]->content]);
    }

    public function testQuotedParametersKeepEscapedQuotesAndSemicolons(): void
    {
        $parts = (new MultipartParser())->parse(self::body(
            "Content-Disposition: form-data; name=\"a;b\\\"c\"; filename=\"x\\\"y.txt\"\r\n\r\nv",
        ), self::B);

        self::assertSame('a;b"c', $parts[0]->name);
        self::assertSame('x"y.txt', $parts[0]->filename);
    }

    public function testPartsWithoutADispositionOrANameAreSkipped(): void
    {
        $parts = (new MultipartParser())->parse(self::body(
            "Content-Type: text/plain\r\n\r\nno disposition",
            "Content-Disposition: form-data\r\n\r\nno name",
            "Content-Disposition: attachment; name=\"x\"\r\n\r\nnot form-data",
            "Content-Disposition: form-data; name=\"kept\"\r\n\r\nyes",
        ), self::B);

        self::assertCount(1, $parts);
        self::assertSame('kept', $parts[0]->name);
    }

    /** @return iterable<string, array{string}> */
    public static function malformedBodies(): iterable
    {
        $part = "Content-Disposition: form-data; name=\"a\"\r\n\r\n1";
        yield 'no delimiter at all' => ['just some text'];
        yield 'no close delimiter' => ['--' . self::B . "\r\n" . $part];
        yield 'cut in the middle of a part' => ['--' . self::B . "\r\n" . \substr($part, 0, 20)];
        yield 'headers without a blank line' => ['--' . self::B . "\r\nContent-Disposition: form-data; name=\"a\"\r\n--" . self::B . '--'];
        yield 'a header line without a colon' => ['--' . self::B . "\r\nnonsense\r\n\r\nx\r\n--" . self::B . '--'];
        yield 'text after the delimiter on its line' => ['--' . self::B . "junk\r\n" . $part . "\r\n--" . self::B . '--'];
    }

    #[DataProvider('malformedBodies')]
    public function testAMalformedBodyIsRefused(string $body): void
    {
        $this->expectException(MalformedBodyException::class);

        (new MultipartParser())->parse($body, self::B);
    }

    public function testMorePartsThanTheLimitAreRefused(): void
    {
        $this->expectException(MalformedBodyException::class);
        $this->expectExceptionMessage('More than 2 parts');

        (new MultipartParser(2))->parse(self::body(...\array_fill(0, 3, "Content-Disposition: form-data; name=\"a[]\"\r\n\r\nx")), self::B);
    }

    /** @return iterable<string, array{string, ?string}> */
    public static function contentTypes(): iterable
    {
        yield 'a bare boundary' => ['multipart/form-data; boundary=abc', 'abc'];
        yield 'a quoted boundary' => ['Multipart/Form-Data; charset=utf-8; boundary="a b:c"', 'a b:c'];
        yield 'another type' => ['application/x-www-form-urlencoded', null];
        yield 'JSON' => ['application/json; boundary=abc', null];
    }

    #[DataProvider('contentTypes')]
    public function testTheBoundaryIsTakenFromTheContentType(string $contentType, ?string $boundary): void
    {
        self::assertSame($boundary, MultipartParser::boundaryOf($contentType));
    }

    public function testMultipartWithoutABoundaryIsRefused(): void
    {
        $this->expectException(MalformedBodyException::class);

        MultipartParser::boundaryOf('multipart/form-data');
    }
}
