<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Http\Message;

use Bobbin\Http\Message\Response;
use Bobbin\Http\Message\ServerRequest;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/** Header names must be RFC 9110 tokens and values free of control characters, or nothing is set. */
final class InvalidHeadersTest extends TestCase
{
    /** @return iterable<string, array{string}> */
    public static function invalidNames(): iterable
    {
        yield 'empty' => [''];
        yield 'a space' => ['X Header'];
        yield 'a colon' => ['X-Header:'];
        yield 'CR LF' => ["X-Header\r\nInjected"];
        yield 'a NUL byte' => ["X\0"];
        yield 'non-ASCII' => ['X-Größe'];
        yield 'a separator' => ['X(Header)'];
    }

    /** @return iterable<string, array{mixed}> */
    public static function invalidValues(): iterable
    {
        yield 'CR LF' => ["value\r\nSet-Cookie: x=1"];
        yield 'a bare LF' => ["value\nmore"];
        yield 'a bare CR' => ["value\rmore"];
        yield 'a NUL byte' => ["value\0"];
        yield 'DEL' => ["value\x7f"];
        yield 'an empty list' => [[]];
        yield 'a bad value in a list' => [['ok', "bad\n"]];
        yield 'null' => [null];
        yield 'a boolean' => [true];
        yield 'an object' => [new \stdClass()];
    }

    #[DataProvider('invalidNames')]
    public function testWithHeaderRejectsAnInvalidName(string $name): void
    {
        $this->expectException(\InvalidArgumentException::class);

        (new Response())->withHeader($name, 'value');
    }

    #[DataProvider('invalidNames')]
    public function testWithAddedHeaderRejectsAnInvalidName(string $name): void
    {
        $this->expectException(\InvalidArgumentException::class);

        self::request()->withAddedHeader($name, 'value');
    }

    #[DataProvider('invalidNames')]
    public function testTheResponseConstructorRejectsAnInvalidName(string $name): void
    {
        $this->expectException(\InvalidArgumentException::class);

        new Response(200, [$name => 'value']);
    }

    #[DataProvider('invalidValues')]
    public function testWithHeaderRejectsAnInvalidValue(mixed $value): void
    {
        $this->expectException(\InvalidArgumentException::class);

        self::request()->withHeader('X-Header', $value);
    }

    #[DataProvider('invalidValues')]
    public function testWithAddedHeaderRejectsAnInvalidValue(mixed $value): void
    {
        $this->expectException(\InvalidArgumentException::class);

        (new Response())->withAddedHeader('X-Header', $value);
    }

    #[DataProvider('invalidValues')]
    public function testTheResponseConstructorRejectsAnInvalidValue(mixed $value): void
    {
        $this->expectException(\InvalidArgumentException::class);

        new Response(200, ['X-Header' => $value]);
    }

    public function testATabInsideAValueAndObsTextAreAllowed(): void
    {
        $response = (new Response())->withHeader('X-Header', "a\tb \xE2\x82\xAC");

        self::assertSame("a\tb \xE2\x82\xAC", $response->getHeaderLine('X-Header'));
    }

    private static function request(): ServerRequest
    {
        return ServerRequest::fromParsed('GET', '/', '1.1', ['Host' => ['a']], 'a', 'localhost', '', [], null);
    }
}
