<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Http;

use Bobbin\Tests\Support\Http\ServerProcess;
use PHPUnit\Framework\TestCase;

/** curl, ab and wrk against examples/hello.php: real clients, zero failures. */
final class RealClientsTest extends TestCase
{
    private static ?ServerProcess $server = null;

    public static function setUpBeforeClass(): void
    {
        self::$server = ServerProcess::start([], \dirname(__DIR__, 3) . '/examples/hello.php');
    }

    public static function tearDownAfterClass(): void
    {
        $code = self::$server?->stop();
        self::$server = null;
        self::assertSame(0, $code);
    }

    /**
     * @param list<string> $arguments
     * @return array{int, string, string}
     */
    private static function runTool(string $tool, array $arguments): array
    {
        if (\trim((string) \shell_exec('command -v ' . \escapeshellarg($tool))) === '') {
            self::markTestSkipped($tool . ' is not installed');
        }
        $process = \proc_open(\array_merge([$tool], $arguments), [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        self::assertIsResource($process);
        $out = (string) \stream_get_contents($pipes[1]);
        $err = (string) \stream_get_contents($pipes[2]);

        return [\proc_close($process), $out, $err];
    }

    private static function url(string $path = '/'): string
    {
        return (string) self::$server?->url($path);
    }

    public function testCurlGetsHelloWorld(): void
    {
        [$code, $out] = self::runTool('curl', ['-sS', '--max-time', '10', '-D', '-', self::url('/anything?x=1')]);

        self::assertSame(0, $code);
        self::assertMatchesRegularExpression('#^HTTP/1\.1 200 OK\r\n#', $out);
        self::assertStringContainsString("Content-Type: text/plain\r\n", $out);
        self::assertStringEndsWith("\r\n\r\nHello, World!", $out);
    }

    public function testCurlHeadGetsNoBody(): void
    {
        [$code, $out] = self::runTool('curl', ['-sS', '--max-time', '10', '-I', self::url()]);

        self::assertSame(0, $code);
        self::assertStringContainsString("Content-Length: 13\r\n", $out);
        self::assertStringEndsWith("\r\n\r\n", $out);
    }

    public function testCurlPostsAndPutsAreEchoedByteForByte(): void
    {
        $payload = \random_bytes(300000);
        $file = \tempnam(\sys_get_temp_dir(), 'bobbin-curl-');
        \file_put_contents($file, $payload);
        try {
            // A body this large makes curl send Expect: 100-continue.
            [$code, $out] = self::runTool('curl', ['-sS', '--max-time', '10', '-H', 'Content-Type: application/x-test', '--data-binary', '@' . $file, self::url('/echo')]);
            self::assertSame(0, $code);
            self::assertSame($payload, $out);

            [$code, $out] = self::runTool('curl', ['-sS', '--max-time', '10', '-X', 'PUT', '-H', 'Transfer-Encoding: chunked', '--data-binary', '@' . $file, self::url('/echo')]);
            self::assertSame(0, $code);
            self::assertSame($payload, $out);
        } finally {
            \unlink($file);
        }
    }

    public function testCurlOverHttp10AndWithKeepAliveAcrossRequests(): void
    {
        [$code, $out] = self::runTool('curl', ['-sS', '--max-time', '10', '--http1.0', self::url()]);
        self::assertSame(0, $code);
        self::assertSame('Hello, World!', $out);

        [$code, $out, $err] = self::runTool('curl', ['-sS', '-v', '--max-time', '10', self::url('/a'), self::url('/b')]);
        self::assertSame(0, $code);
        self::assertSame('Hello, World!Hello, World!', $out);
        self::assertStringContainsString('Re-using existing connection', $err);
    }

    public function testAbWithKeepAliveHasNoFailures(): void
    {
        [$code, $out] = self::runTool('ab', ['-q', '-k', '-c', '20', '-n', '5000', self::url()]);

        self::assertSame(0, $code, $out);
        self::assertMatchesRegularExpression('/Complete requests:\s+5000/', $out);
        self::assertMatchesRegularExpression('/Failed requests:\s+0/', $out);
        self::assertDoesNotMatchRegularExpression('/Non-2xx responses/', $out);
        self::assertMatchesRegularExpression('/Keep-Alive requests:\s+5000/', $out);
    }

    public function testAbWithoutKeepAliveHasNoFailures(): void
    {
        [$code, $out] = self::runTool('ab', ['-q', '-c', '10', '-n', '1000', self::url()]);

        self::assertSame(0, $code, $out);
        self::assertMatchesRegularExpression('/Failed requests:\s+0/', $out);
        self::assertDoesNotMatchRegularExpression('/Non-2xx responses/', $out);
    }

    public function testWrkHasNoErrors(): void
    {
        [$code, $out] = self::runTool('wrk', ['-t1', '-c50', '-d2s', self::url()]);

        self::assertSame(0, $code, $out);
        self::assertMatchesRegularExpression('/\d+ requests in/', $out);
        self::assertStringNotContainsString('Socket errors', $out);
        self::assertStringNotContainsString('Non-2xx', $out);
    }
}
