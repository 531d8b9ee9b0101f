<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Http;

use Bobbin\Tests\Support\Http\RawClient;
use Bobbin\Tests\Support\Http\ServerProcess;
use PHPUnit\Framework\TestCase;

/**
 * The application holds every free file descriptor: the server still loads the classes a request
 * needs for the first time (loading a file takes a descriptor), on the connection it has.
 */
final class DescriptorExhaustionTest extends TestCase
{
    private const APP = __DIR__ . '/../../Support/Http/descriptor-hog-app.php';

    public function testAMultipartBodyIsParsedForTheFirstTimeWhileTheApplicationHoldsEveryDescriptor(): void
    {
        $server = ServerProcess::start(['--workers=1'], self::APP, fileLimit: 256);
        try {
            $client = new RawClient($server->address);
            $held = $this->hog($client);
            $body = "--b\r\nContent-Disposition: form-data; name=\"field\"\r\n\r\nvalue\r\n--b--\r\n";
            $client->send("POST /form HTTP/1.1\r\nHost: a\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: " . \strlen($body) . "\r\n\r\n" . $body);
            $response = $client->readResponse();

            self::assertGreaterThan(100, $held);
            self::assertSame(200, $response['status'] ?? null, $server->log());
            self::assertSame('value', $response['body'] ?? null);
            $this->release($client);
        } finally {
            self::assertSame(0, $server->stop(), $server->log());
        }
    }

    public function testAMalformedRequestIsRefusedWhileTheApplicationHoldsEveryDescriptor(): void
    {
        $server = ServerProcess::start(['--workers=1'], self::APP, fileLimit: 256);
        try {
            $client = new RawClient($server->address);
            $this->hog($client);
            $client->send("GET /form HTTP/1.1\r\nHost: a\r\nContent-Length: x\r\n\r\n");
            $response = $client->readResponse();

            self::assertSame(400, $response['status'] ?? null, $server->log());
            $client->close();
            self::assertTrue($server->isRunning());
            $other = new RawClient($server->address);
            $this->release($other);
        } finally {
            self::assertSame(0, $server->stop(), $server->log());
        }
    }

    private function hog(RawClient $client): int
    {
        $client->send("GET /hog HTTP/1.1\r\nHost: a\r\n\r\n");
        $response = $client->readResponse();
        self::assertSame(200, $response['status'] ?? null);

        return (int) ($response['body'] ?? 0);
    }

    private function release(RawClient $client): void
    {
        $client->send("GET /release HTTP/1.1\r\nHost: a\r\n\r\n");
        self::assertSame('released', $client->readResponse()['body'] ?? null);
        $client->close();
    }
}
