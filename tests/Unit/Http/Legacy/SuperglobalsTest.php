<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Http\Legacy;

use Bobbin\Http\Legacy\Superglobals;
use Bobbin\Http\Message\ServerRequest;
use Bobbin\Http\Message\UploadedFile;
use PHPUnit\Framework\TestCase;

/** A PSR-7 request as the superglobals a PHP-FPM script reads. */
final class SuperglobalsTest extends TestCase
{
    private static function request(): ServerRequest
    {
        return ServerRequest::fromParsed('POST', '/x?a=1&both=get', '1.1', ['Host' => ['h'], 'Content-Type' => ['application/x-www-form-urlencoded']], 'h', 'h', 'both=post&p=2', [], 'c=3; both=cookie', contentType: 'application/x-www-form-urlencoded');
    }

    public function testRequestMergesGetPostAndCookiesInTheRequestOrder(): void
    {
        $globals = Superglobals::of(self::request(), 'GPC');

        self::assertSame(['a' => '1', 'both' => 'get'], $globals->get);
        self::assertSame(['both' => 'post', 'p' => '2'], $globals->post);
        self::assertSame(['c' => '3', 'both' => 'cookie'], $globals->cookie);
        self::assertSame(['a' => '1', 'both' => 'cookie', 'p' => '2', 'c' => '3'], $globals->request);
        self::assertSame(['a' => '1', 'both' => 'post', 'p' => '2'], Superglobals::of(self::request(), 'GP')->request);
        self::assertSame('both=post&p=2', $globals->input);
        self::assertSame('a=1&both=get', $globals->server['QUERY_STRING'] ?? null);
    }

    public function testFilesTakePhpsShapeOneTreePerAttributeForBracketedNames(): void
    {
        $a = new UploadedFile('/tmp/phpA', 3, \UPLOAD_ERR_OK, 'a.txt', 'text/plain');
        $b = new UploadedFile('', 0, \UPLOAD_ERR_INI_SIZE, 'b.bin', '');
        $request = self::request()->withUploadedFiles(['one' => $a, 'many' => ['x' => [$a, $b]]]);

        $files = Superglobals::of($request)->files;

        self::assertSame(['name' => 'a.txt', 'full_path' => 'a.txt', 'type' => 'text/plain', 'tmp_name' => '/tmp/phpA', 'error' => 0, 'size' => 3], $files['one']);
        self::assertSame(['x' => ['a.txt', 'b.bin']], $files['many']['name']);
        self::assertSame(['x' => ['/tmp/phpA', '']], $files['many']['tmp_name']);
        self::assertSame(['x' => [0, \UPLOAD_ERR_INI_SIZE]], $files['many']['error']);
        self::assertSame(['x' => [3, 0]], $files['many']['size']);
    }
}
