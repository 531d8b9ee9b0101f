<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Http\StaticFiles;

use Bobbin\Http\ClosureHandler;
use Bobbin\Http\Message\Response;
use Bobbin\Http\Message\ServerRequest;
use Bobbin\Http\ResponseFramer;
use Bobbin\Http\StaticFiles\StaticFilesHandler;
use Bobbin\Http\StaticFiles\StaticMount;
use PHPUnit\Framework\TestCase;
use Psr\Http\Message\ResponseInterface;

/** The static handler against a real directory: which requests it answers, and the bytes it sends. */
final class StaticFilesHandlerTest extends TestCase
{
    private string $root;
    private string $outside;

    protected function setUp(): void
    {
        $this->root = \sys_get_temp_dir() . '/bobbin-static-' . \bin2hex(\random_bytes(4));
        $this->outside = $this->root . '-outside';
        \mkdir($this->root . '/sub', 0777, true);
        \mkdir($this->outside);
        \file_put_contents($this->root . '/a.txt', '0123456789');
        \touch($this->root . '/a.txt', 1700000000);
        \file_put_contents($this->root . '/page.html', '<p>hello</p>');
        \file_put_contents($this->root . '/page.html.gz', 'GZIPPED');
        \file_put_contents($this->root . '/page.html.br', 'BROTLI');
        \file_put_contents($this->root . '/script.php', '<?php echo "source";');
        \file_put_contents($this->root . '/.env', 'SECRET=1');
        \file_put_contents($this->outside . '/secret.txt', 'secret');
        \symlink($this->outside . '/secret.txt', $this->root . '/link.txt');
        \symlink($this->root . '/a.txt', $this->root . '/sub/inside.txt');
    }

    protected function tearDown(): void
    {
        \exec('rm -rf ' . \escapeshellarg($this->root) . ' ' . \escapeshellarg($this->outside));
    }

    private function handler(string $prefix = ''): StaticFilesHandler
    {
        $mount = StaticMount::parse(($prefix === '' ? '' : $prefix . '=') . $this->root);

        return new StaticFilesHandler([$mount], new ClosureHandler(static fn () => new Response(299, [], 'from the application')));
    }

    /** @param array<string, string> $headers */
    private function get(string $target, array $headers = [], string $method = 'GET', string $prefix = ''): ResponseInterface
    {
        $request = ServerRequest::fromParsed($method, $target, '1.1', ['Host' => ['h']] + \array_map(static fn (string $v): array => [$v], $headers), 'h', 'h', '', [], null);

        return $this->handler($prefix)->handle($request);
    }

    public function testAFileGoesOutByteForByteWithItsHeaders(): void
    {
        $response = $this->get('/a.txt');
        $stat = \stat($this->root . '/a.txt');
        \assert($stat !== false);
        $framed = (new ResponseFramer(''))->frame($response, 'GET', '1.1', true, "Date: X\r\n");

        self::assertSame("HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\n"
            . 'ETag: "' . \dechex($stat['ino']) . "-a-6553f100\"\r\nLast-Modified: Tue, 14 Nov 2023 22:13:20 GMT\r\n"
            . "Accept-Ranges: bytes\r\nDate: X\r\nContent-Length: 10\r\n\r\n0123456789", $framed->bytes);
    }

    public function testARangeGoesOutAsItsBytes(): void
    {
        $response = $this->get('/a.txt', ['Range' => 'bytes=2-4']);

        self::assertSame(206, $response->getStatusCode());
        self::assertSame('234', (string) $response->getBody());
    }

    public function testAPrecompressedSiblingIsSentToAClientThatAcceptsItBrotliFirst(): void
    {
        self::assertSame('BROTLI', (string) $this->get('/page.html', ['Accept-Encoding' => 'gzip, br'])->getBody());
        self::assertSame('GZIPPED', (string) $this->get('/page.html', ['Accept-Encoding' => 'gzip, br;q=0'])->getBody());
        $identity = $this->get('/page.html', ['Accept-Encoding' => 'identity']);
        self::assertSame('<p>hello</p>', (string) $identity->getBody());
        self::assertSame('Accept-Encoding', $identity->getHeaderLine('Vary'));
        self::assertSame('gzip', $this->get('/page.html', ['Accept-Encoding' => 'gzip'])->getHeaderLine('Content-Encoding'));
        self::assertSame('text/html; charset=utf-8', $this->get('/page.html', ['Accept-Encoding' => 'gzip'])->getHeaderLine('Content-Type'));
    }

    public function testNothingOutsideTheRootNoScriptAndNoDotfileIsEverSent(): void
    {
        self::assertSame(404, $this->get('/link.txt')->getStatusCode());
        self::assertSame(400, $this->get('/sub/../../' . \basename($this->outside) . '/secret.txt')->getStatusCode());
        self::assertSame(299, $this->get('/script.php')->getStatusCode());
        self::assertSame(404, $this->get('/.env')->getStatusCode());
        self::assertSame(299, $this->get('/sub%2f..%2fa.txt')->getStatusCode());
        self::assertSame(400, $this->get('/a.txt%00')->getStatusCode());
        self::assertSame('0123456789', (string) $this->get('/sub/inside.txt')->getBody());
    }

    public function testTheApplicationGetsWhatIsNoFile(): void
    {
        self::assertSame(299, $this->get('/missing.txt')->getStatusCode());
        self::assertSame(299, $this->get('/sub')->getStatusCode());
        self::assertSame(299, $this->get('/sub/')->getStatusCode());
        self::assertSame(299, $this->get('/a.txt', method: 'POST')->getStatusCode());
        self::assertSame(299, $this->get('/a.txt', prefix: '/assets')->getStatusCode());
        self::assertSame(299, $this->get('/assetsa.txt', prefix: '/assets')->getStatusCode());
        self::assertSame(200, $this->get('/assets/a.txt', prefix: '/assets')->getStatusCode());
    }

    public function testASmallFileKeptInMemoryIsReadAgainOnceItChangesOnDisk(): void
    {
        $handler = $this->handler();
        $request = ServerRequest::fromParsed('GET', '/a.txt', '1.1', ['Host' => ['h']], 'h', 'h', '', [], null);
        self::assertSame('0123456789', (string) $handler->handle($request)->getBody());

        \file_put_contents($this->root . '/a.txt', 'abcdefghij');
        \touch($this->root . '/a.txt', 1700000100);
        self::assertSame('abcdefghij', (string) $handler->handle($request)->getBody(), 'same size, another time');

        \file_put_contents($this->root . '/a.txt', 'longer now');
        \file_put_contents($this->root . '/a.txt', 'a new size!');
        self::assertSame('a new size!', (string) $handler->handle($request)->getBody());
        self::assertSame('11', $handler->handle($request)->getHeaderLine('Content-Length'));
    }
}
