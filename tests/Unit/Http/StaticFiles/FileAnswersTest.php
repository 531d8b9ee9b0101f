<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Http\StaticFiles;

use Bobbin\Http\StaticFiles\FileAnswers;
use Bobbin\Http\StaticFiles\FileFacts;
use Bobbin\Http\StaticFiles\RequestConditions;
use PHPUnit\Framework\TestCase;

/** The answer to a GET or HEAD of a file: conditional requests and ranges, header by header. */
final class FileAnswersTest extends TestCase
{
    private const ETAG = '"3039-3e8-6553f100"';
    private const MODIFIED = 'Tue, 14 Nov 2023 22:13:20 GMT';

    private static function file(?string $encoding = null, bool $varies = false): FileFacts
    {
        return new FileFacts(1000, 1700000000, 12345, 'text/css; charset=utf-8', $encoding, $varies);
    }

    public function testAPlainGetIsTheWholeFileWithItsValidators(): void
    {
        $answer = FileAnswers::decide(new RequestConditions('GET'), self::file());

        self::assertSame(200, $answer->status);
        self::assertSame([
            'Content-Type' => 'text/css; charset=utf-8',
            'ETag' => self::ETAG,
            'Last-Modified' => self::MODIFIED,
            'Accept-Ranges' => 'bytes',
            'Content-Length' => '1000',
        ], $answer->headers);
        self::assertTrue($answer->sendsBody);
        self::assertSame([0, 1000], [$answer->offset, $answer->length]);
    }

    public function testAHeadHasTheSameHeadersAndNoBody(): void
    {
        $answer = FileAnswers::decide(new RequestConditions('HEAD'), self::file());

        self::assertSame(200, $answer->status);
        self::assertSame('1000', $answer->headers['Content-Length']);
        self::assertFalse($answer->sendsBody);
    }

    public function testAMatchingIfNoneMatchIsA304WithTheValidatorsOnly(): void
    {
        foreach ([self::ETAG, 'W/' . self::ETAG, '"other", ' . self::ETAG, '*'] as $tags) {
            $answer = FileAnswers::decide(new RequestConditions('GET', ifNoneMatch: $tags), self::file());

            self::assertSame(304, $answer->status, $tags);
            self::assertSame(['ETag' => self::ETAG, 'Last-Modified' => self::MODIFIED], $answer->headers);
            self::assertFalse($answer->sendsBody);
        }
    }

    public function testAnIfNoneMatchOfAnotherTagIsAFullAnswerEvenWhenIfModifiedSinceWouldMatch(): void
    {
        $answer = FileAnswers::decide(new RequestConditions('GET', ifNoneMatch: '"other"', ifModifiedSince: self::MODIFIED), self::file());

        self::assertSame(200, $answer->status);
    }

    public function testIfModifiedSinceTheFilesDateOrLaterIsA304AndEarlierIsNot(): void
    {
        self::assertSame(304, FileAnswers::decide(new RequestConditions('GET', ifModifiedSince: self::MODIFIED), self::file())->status);
        self::assertSame(304, FileAnswers::decide(new RequestConditions('GET', ifModifiedSince: 'Wed, 15 Nov 2023 00:00:00 GMT'), self::file())->status);
        self::assertSame(200, FileAnswers::decide(new RequestConditions('GET', ifModifiedSince: 'Tue, 14 Nov 2023 22:13:19 GMT'), self::file())->status);
        self::assertSame(200, FileAnswers::decide(new RequestConditions('GET', ifModifiedSince: 'yesterday'), self::file())->status);
    }

    public function testARangeIsA206WithItsContentRangeAndLength(): void
    {
        $answer = FileAnswers::decide(new RequestConditions('GET', range: 'bytes=100-199'), self::file());

        self::assertSame(206, $answer->status);
        self::assertSame('bytes 100-199/1000', $answer->headers['Content-Range']);
        self::assertSame('100', $answer->headers['Content-Length']);
        self::assertSame([100, 100], [$answer->offset, $answer->length]);
    }

    public function testAnUnsatisfiableRangeIsA416NamingTheSize(): void
    {
        $answer = FileAnswers::decide(new RequestConditions('GET', range: 'bytes=5000-'), self::file());

        self::assertSame(416, $answer->status);
        self::assertSame([
            'ETag' => self::ETAG,
            'Last-Modified' => self::MODIFIED,
            'Content-Range' => 'bytes */1000',
            'Content-Length' => '0',
        ], $answer->headers);
        self::assertFalse($answer->sendsBody);
    }

    public function testIfRangeWithThisFilesTagOrDateKeepsTheRangeAndAnythingElseGetsTheWholeFile(): void
    {
        self::assertSame(206, FileAnswers::decide(new RequestConditions('GET', range: 'bytes=0-9', ifRange: self::ETAG), self::file())->status);
        self::assertSame(206, FileAnswers::decide(new RequestConditions('GET', range: 'bytes=0-9', ifRange: self::MODIFIED), self::file())->status);
        self::assertSame(200, FileAnswers::decide(new RequestConditions('GET', range: 'bytes=0-9', ifRange: '"old"'), self::file())->status);
        self::assertSame(200, FileAnswers::decide(new RequestConditions('GET', range: 'bytes=0-9', ifRange: 'W/' . self::ETAG), self::file())->status);
        self::assertSame(200, FileAnswers::decide(new RequestConditions('GET', range: 'bytes=0-9', ifRange: 'Mon, 13 Nov 2023 00:00:00 GMT'), self::file())->status);
    }

    public function testA304WinsOverARange(): void
    {
        self::assertSame(304, FileAnswers::decide(new RequestConditions('GET', ifNoneMatch: self::ETAG, range: 'bytes=0-9'), self::file())->status);
    }

    public function testAPrecompressedSiblingCarriesItsEncodingAndEveryAnswerVaries(): void
    {
        $answer = FileAnswers::decide(new RequestConditions('GET'), self::file('gzip', true));

        self::assertSame('gzip', $answer->headers['Content-Encoding']);
        self::assertSame('Accept-Encoding', $answer->headers['Vary']);
        self::assertSame('Accept-Encoding', FileAnswers::decide(new RequestConditions('GET', ifNoneMatch: '*'), self::file('gzip', true))->headers['Vary']);
    }
}
