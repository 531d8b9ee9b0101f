<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Http;

use Bobbin\Tests\Support\Http\ServerProcess;
use Bobbin\Tests\Support\Tls\TestCertificates;
use PHPUnit\Framework\TestCase;

/**
 * `serve --static` and `--compression` against curl: files, conditional requests, ranges,
 * precompressed siblings, refused paths, and the application behind them.
 */
final class StaticFilesTest extends TestCase
{
    private static string $base = '';
    private static ?ServerProcess $server = null;

    public static function setUpBeforeClass(): void
    {
        self::$base = \sys_get_temp_dir() . '/bobbin-static-it-' . \bin2hex(\random_bytes(4));
        $public = self::$base . '/public';
        \mkdir($public . '/css', 0o777, true);
        \mkdir($public . '/.git', 0o777, true);
        \mkdir(self::$base . '/outside');
        \mkdir(self::$base . '/docs');
        \file_put_contents($public . '/css/site.css', \str_repeat("body { color: #123456; }\n", 200));
        \file_put_contents($public . '/big.bin', \random_bytes(3 * 1048576 + 17));
        \file_put_contents($public . '/huge.bin', \random_bytes(24 * 1048576));
        \file_put_contents($public . '/app.js', \str_repeat("console.log('x');\n", 100));
        \exec('gzip -k -9 ' . \escapeshellarg($public . '/app.js'));
        \file_put_contents($public . '/.git/config', 'secret');
        \file_put_contents($public . '/script.php', '<?php echo "EXECUTED";');
        \file_put_contents(self::$base . '/outside/secret.txt', 'SECRET OUTSIDE');
        \symlink(self::$base . '/outside/secret.txt', $public . '/out.txt');
        \file_put_contents(self::$base . '/docs/readme.txt', 'the docs');
        self::$server = ServerProcess::start([
            '--workers=1', '--static=' . $public, '--static=/manual=' . self::$base . '/docs', '--compression',
        ]);
    }

    public static function tearDownAfterClass(): void
    {
        $code = self::$server?->stop();
        self::$server = null;
        \exec('rm -rf ' . \escapeshellarg(self::$base));
        self::assertSame(0, $code);
    }

    /**
     * curl's head and body of one request.
     *
     * @param list<string> $arguments
     * @return array{string, string}
     */
    private static function curl(string $path, array $arguments = []): array
    {
        self::assertNotNull(self::$server);
        $process = \proc_open(['curl', '-sS', '--max-time', '10', '--path-as-is', '-D', '-', ...$arguments, self::$server->url($path)], [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        self::assertIsResource($process);
        $out = (string) \stream_get_contents($pipes[1]);
        $errors = (string) \stream_get_contents($pipes[2]);
        self::assertSame(0, \proc_close($process), $errors);

        return \explode("\r\n\r\n", $out, 2) + [1 => ''];
    }

    private static function header(string $head, string $name): ?string
    {
        return \preg_match('/^' . \preg_quote($name, '/') . ': *([^\r\n]*)/mi', $head, $m) === 1 ? $m[1] : null;
    }

    public function testAFileComesWithItsTypeLengthAndValidatorsAndA304WhenUnchanged(): void
    {
        [$head, $body] = self::curl('/css/site.css');

        self::assertStringStartsWith('HTTP/1.1 200', $head);
        self::assertSame(\file_get_contents(self::$base . '/public/css/site.css'), $body);
        self::assertSame('text/css; charset=utf-8', self::header($head, 'Content-Type'));
        self::assertSame('5000', self::header($head, 'Content-Length'));
        $etag = (string) self::header($head, 'ETag');
        $modified = (string) self::header($head, 'Last-Modified');

        [$head, $body] = self::curl('/css/site.css', ['-H', 'If-None-Match: ' . $etag]);
        self::assertStringStartsWith('HTTP/1.1 304', $head);
        self::assertSame('', $body);
        [$head] = self::curl('/css/site.css', ['-H', 'If-Modified-Since: ' . $modified]);
        self::assertStringStartsWith('HTTP/1.1 304', $head);
        [$head] = self::curl('/css/site.css', ['-I']);
        self::assertStringStartsWith('HTTP/1.1 200', $head);
        self::assertSame('5000', self::header($head, 'Content-Length'));
    }

    public function testALargeFileArrivesWholeAndARangeOfItExactly(): void
    {
        $file = (string) \file_get_contents(self::$base . '/public/big.bin');
        [$head, $body] = self::curl('/big.bin');
        self::assertStringStartsWith('HTTP/1.1 200', $head);
        self::assertTrue($body === $file, 'the 3 MiB body differs');

        [$head, $body] = self::curl('/big.bin', ['-r', '1048570-1048600']);
        self::assertStringStartsWith('HTTP/1.1 206', $head);
        self::assertSame('bytes 1048570-1048600/' . \strlen($file), self::header($head, 'Content-Range'));
        self::assertSame(\substr($file, 1048570, 31), $body);

        [$head, $body] = self::curl('/big.bin', ['-r', '-5']);
        self::assertSame(\substr($file, -5), $body);
    }

    public function testAClientThatReadsLateStillGetsEveryByteOfAFileLargerThanTheSocketBuffers(): void
    {
        self::assertNotNull(self::$server);
        $socket = \stream_socket_client('tcp://' . self::$server->address, $code, $message, 5);
        self::assertIsResource($socket, $message);
        \fwrite($socket, "GET /huge.bin HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        \usleep(500_000); // the server's sendfile() meets a full socket and waits for the client
        \stream_set_timeout($socket, 10);
        $response = (string) \stream_get_contents($socket);
        \fclose($socket);
        [$head, $body] = \explode("\r\n\r\n", $response, 2) + [1 => ''];

        self::assertStringStartsWith('HTTP/1.1 200', $head);
        self::assertSame(24 * 1048576, \strlen($body));
        self::assertTrue(\md5($body) === \md5_file(self::$base . '/public/huge.bin'), 'the body differs from the file');
    }

    public function testMalformedAndUnsatisfiableRangesGetA416AndTheServerGoesOn(): void
    {
        foreach (['bytes=abc', 'bytes=5-1', 'bytes=99999999999999999999999999-', 'bytes=' . \str_repeat('0-0,', 40) . '0-0'] as $range) {
            [$head] = self::curl('/big.bin', ['-H', 'Range: ' . $range]);

            self::assertStringStartsWith('HTTP/1.1 416', $head, $range);
            self::assertSame('bytes */3145745', self::header($head, 'Content-Range'), $range);
        }
        [$head] = self::curl('/big.bin', ['-H', 'Range: bytes=0-0,5-5']);
        self::assertStringStartsWith('HTTP/1.1 200', $head, 'several ranges: the whole file');
        [$head] = self::curl('/big.bin', ['-r', '0-9', '-H', 'If-Range: "stale"']);
        self::assertStringStartsWith('HTTP/1.1 200', $head);
    }

    public function testAPrecompressedSiblingGoesToAClientThatAcceptsGzip(): void
    {
        [$head, $body] = self::curl('/app.js', ['-H', 'Accept-Encoding: gzip']);

        self::assertSame('gzip', self::header($head, 'Content-Encoding'));
        self::assertSame('Accept-Encoding', self::header($head, 'Vary'));
        self::assertSame(\file_get_contents(self::$base . '/public/app.js.gz'), $body);
        [, $plain] = self::curl('/app.js');
        self::assertSame(\file_get_contents(self::$base . '/public/app.js'), $plain);
    }

    public function testATextFileWithoutASiblingIsGzippedOnTheFlyForAClientThatAcceptsIt(): void
    {
        [$head, $body] = self::curl('/css/site.css', ['--compressed']);

        self::assertSame('gzip', self::header($head, 'Content-Encoding'));
        self::assertStringStartsWith('W/"', (string) self::header($head, 'ETag'));
        self::assertSame(\file_get_contents(self::$base . '/public/css/site.css'), $body);
    }

    public function testNoPathLeadsToADotfileAScriptOrOutOfTheRoot(): void
    {
        $refused = [
            '/.git/config' => 404, '/out.txt' => 404, '/css/../../outside/secret.txt' => 400,
            '/%2e%2e/outside/secret.txt' => 400, '/css/site.css%00.png' => 400,
        ];
        foreach ($refused as $path => $status) {
            [$head, $body] = self::curl($path);

            self::assertStringStartsWith('HTTP/1.1 ' . $status, $head, $path);
            self::assertStringNotContainsString('SECRET', $body, $path);
            self::assertStringNotContainsString('secret', $body, $path);
        }
        foreach (['/script.php', '/css%2fsite.css', '/css/'] as $path) {
            [, $body] = self::curl($path);
            self::assertSame('Hello, World!', $body, $path . ' goes to the application');
        }
    }

    public function testAPrefixServesItsOwnDirectoryAndTheApplicationGetsEverythingElse(): void
    {
        self::assertSame('the docs', self::curl('/manual/readme.txt')[1]);
        self::assertSame('Hello, World!', self::curl('/readme.txt')[1]);
        self::assertSame('Hello, World!', self::curl('/nothing/here')[1]);
        [$head] = self::curl('/css/site.css', ['-X', 'POST']);
        self::assertStringStartsWith('HTTP/1.1 200', $head);
        self::assertNull(self::header($head, 'ETag'), 'a POST goes to the application');
    }

    public function testOverHttpsALargeFileGoesThroughTlsNotAroundIt(): void
    {
        $https = ServerProcess::start([
            '--workers=1', '--static=' . self::$base . '/public',
            '--tls-cert=' . TestCertificates::certificate(TestCertificates::LOCALHOST), '--tls-key=' . TestCertificates::key(TestCertificates::LOCALHOST),
        ]);
        try {
            $process = \proc_open(['curl', '-sS', '--max-time', '20', '--cacert', TestCertificates::ca(), 'https://localhost:' . $https->port . '/big.bin'], [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
            self::assertIsResource($process);
            $body = (string) \stream_get_contents($pipes[1]);
            $errors = (string) \stream_get_contents($pipes[2]);

            self::assertSame(0, \proc_close($process), $errors);
            self::assertTrue($body === \file_get_contents(self::$base . '/public/big.bin'), 'the body differs from the file');
        } finally {
            $https->stop();
        }
    }
}
