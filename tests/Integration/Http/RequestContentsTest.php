<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Http;

use Bobbin\Tests\Support\Http\RawClient;
use Bobbin\Tests\Support\Http\ServerProcess;
use PHPUnit\Framework\TestCase;

/** Uploads in temporary files for the request's life, malformed forms refused, trusted proxies believed. */
final class RequestContentsTest extends TestCase
{
    private static ?ServerProcess $server = null;

    public static function setUpBeforeClass(): void
    {
        self::$server = ServerProcess::start(['--workers=1', '--trusted-proxies=127.0.0.1']);
    }

    public static function tearDownAfterClass(): void
    {
        self::$server?->stop();
        self::$server = null;
    }

    /** @return array{int, array<string, mixed>} */
    private static function send(string $request): array
    {
        $client = new RawClient((string) self::$server?->address);
        $client->send($request);
        $response = $client->readResponse();
        $client->close();

        return [$response['status'] ?? 0, \json_decode($response['body'] ?? '', true) ?? []];
    }

    private static function multipart(string $body): string
    {
        return "POST /upload-paths HTTP/1.1\r\nHost: a\r\nContent-Type: multipart/form-data; boundary=B\r\nContent-Length: " . \strlen($body) . "\r\n\r\n" . $body;
    }

    public function testUploadedFilesExistWhileTheRequestRunsAndAreGoneAfterIt(): void
    {
        [$status, $seen] = self::send(self::multipart("--B\r\nContent-Disposition: form-data; name=\"f[]\"; filename=\"a.txt\"\r\n\r\nA\r\n--B\r\nContent-Disposition: form-data; name=\"f[]\"; filename=\"b.txt\"\r\n\r\nB\r\n--B--\r\n"));

        self::assertSame(200, $status);
        self::assertCount(2, $seen['paths']);
        self::assertSame([true, true], $seen['exist']);
        foreach ($seen['paths'] as $path) {
            self::assertFileDoesNotExist($path);
        }
    }

    public function testAMalformedMultipartBodyIs400AndTheWorkerServesOn(): void
    {
        [$status] = self::send(self::multipart("--B\r\nContent-Disposition: form-data; name=\"f\"\r\n\r\nno end"));

        self::assertSame(400, $status);
        self::assertSame(200, self::send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")[0]);
    }

    public function testUploadsOfARequestRefusedForItsHostAreRemovedToo(): void
    {
        $directory = \sys_get_temp_dir() . '/bobbin-uploads-' . \bin2hex(\random_bytes(4));
        \mkdir($directory);
        $server = ServerProcess::start(['--workers=1'], environment: ['TMPDIR' => $directory]);
        try {
            $client = new RawClient($server->address);
            // The parser takes the Host's shape; the URI refuses its port, after the form was decoded.
            $client->send(\str_replace('Host: a', 'Host: a:99999', self::multipart("--B\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a.txt\"\r\n\r\nA\r\n--B--\r\n")));
            $response = $client->readResponse();
            $client->close();

            self::assertSame(400, $response['status'] ?? 0);
            self::assertSame([], \glob($directory . '/php*'), 'no upload left behind');
        } finally {
            $server->stop();
            \array_map('unlink', \glob($directory . '/php*') ?: []);
            @\rmdir($directory);
        }
    }

    public function testATrustedProxyNamesTheClientAndItsScheme(): void
    {
        [, $info] = self::send("GET /info HTTP/1.1\r\nHost: example.test\r\nX-Forwarded-For: 198.51.100.1, 203.0.113.5\r\nX-Forwarded-Proto: https\r\n\r\n");

        self::assertSame('203.0.113.5', $info['server']['REMOTE_ADDR']);
        self::assertSame('on', $info['server']['HTTPS']);
        self::assertSame('https://example.test/info', $info['uri']);
    }

    public function testForwardedHeadersFromAnUntrustedPeerChangeNothing(): void
    {
        $server = ServerProcess::start(['--workers=1', '--trusted-proxies=10.0.0.0/8']);
        try {
            $client = new RawClient($server->address);
            $client->send("GET /info HTTP/1.1\r\nHost: example.test\r\nX-Forwarded-For: 203.0.113.5\r\nX-Forwarded-Proto: https\r\n\r\n");
            $info = \json_decode($client->readResponse()['body'] ?? '', true);
        } finally {
            $server->stop();
        }

        self::assertSame('127.0.0.1', $info['server']['REMOTE_ADDR']);
        self::assertArrayNotHasKey('HTTPS', $info['server']);
        self::assertSame('http://example.test/info', $info['uri']);
    }
}
