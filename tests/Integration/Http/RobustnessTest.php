<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Http;

use Bobbin\Tests\Support\Http\RawClient;
use Bobbin\Tests\Support\Http\ServerProcess;
use PHPUnit\Framework\TestCase;

/** Misbehaving applications and clients, and the limits and timeouts that contain them. */
final class RobustnessTest extends TestCase
{
    private static ?ServerProcess $server = null;

    public static function setUpBeforeClass(): void
    {
        self::$server = ServerProcess::start([
            '--request-timeout=0.5', '--header-timeout=0.6', '--body-timeout=0.6', '--idle-timeout=1',
            '--write-timeout=2', '--max-requests-per-connection=3', '--drain-timeout=1',
        ]);
    }

    public static function tearDownAfterClass(): void
    {
        self::$server?->stop();
        self::$server = null;
    }

    private static function client(): RawClient
    {
        return new RawClient((string) self::$server?->address);
    }

    private static function assertServerStillServes(): void
    {
        $client = self::client();
        $client->send("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
        self::assertSame('Hello, World!', $client->readResponse()['body'] ?? null);
        $client->close();
    }

    public function testAHandlerThatThrowsGets500WithAGenericBodyAndTheNextRequestIsServed(): void
    {
        $client = self::client();
        $client->send("GET /throw HTTP/1.1\r\nHost: a\r\n\r\n");
        $response = $client->readResponse();

        self::assertSame(500, $response['status'] ?? null);
        self::assertStringNotContainsString('secret', $response['body']);
        self::assertStringContainsString('secret detail that must not reach the client', (string) self::$server?->log());
        $client->send("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
        self::assertSame('Hello, World!', $client->readResponse()['body'] ?? null, 'The connection did not survive the 500');
        self::assertServerStillServes();
    }

    public function testWithDebugErrorsA500ShowsTheExceptionToTheClient(): void
    {
        $server = ServerProcess::start(['--workers=1', '--debug-errors']);
        try {
            $client = new RawClient($server->address);
            $client->send("GET /throw HTTP/1.1\r\nHost: a\r\n\r\n");
            $response = $client->readResponse();
        } finally {
            $server->stop();
        }

        self::assertSame(500, $response['status'] ?? null);
        self::assertStringContainsString('RuntimeException: secret detail that must not reach the client in ', $response['body']);
        self::assertStringContainsString('#0 ', $response['body']);
    }

    public function testAHandlerThatIgnoresItsCancellationPastTheRequestTimeoutGets504WhileOthersAreServed(): void
    {
        $slow = self::client();
        $slow->send("GET /slow?ms=3000 HTTP/1.1\r\nHost: a\r\n\r\n");
        self::assertServerStillServes();

        $started = \microtime(true);
        $response = $slow->readResponse();
        // Still running after the deadline and the settle time: what it did is unknown.
        self::assertSame(504, $response['status'] ?? null);
        self::assertLessThan(2.5, \microtime(true) - $started);
        self::assertTrue($slow->isClosedByServer());
        self::assertServerStillServes();
    }

    public function testAClientDisconnectingMidRequestDoesNotAffectTheNextRequest(): void
    {
        $client = self::client();
        $client->send("GET /hello HTTP/1.1\r\nHost:");
        $client->close();
        $client = self::client();
        $client->send("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\n\r\nonly part");
        $client->close();
        $client = self::client();
        $client->send("GET /slow?ms=200 HTTP/1.1\r\nHost: a\r\n\r\n");
        $client->close();

        self::assertServerStillServes();
    }

    public function testAClientThatNeverReadsNeitherBlocksOthersNorMakesTheServerBufferTheResponse(): void
    {
        $rssBefore = self::residentBytes();
        $stuck = self::client();
        $stuck->send("GET /big?bytes=200000000 HTTP/1.1\r\nHost: a\r\n\r\n");
        \usleep(300000);

        self::assertServerStillServes();
        self::assertLessThan(64 * 1024 * 1024, self::residentBytes() - $rssBefore, 'The server buffered a response its client did not read');
        // After the write timeout the stuck connection is dropped; its fiber is gone.
        \usleep(2_500_000);
        self::assertServerStillServes();
        $stuck->close();
    }

    public function testAHeadThatArrivesTooSlowlyGets408(): void
    {
        $client = self::client();
        $client->send("GET / HTTP/1.1\r\nHost: a\r\n");
        $response = $client->readResponse();

        self::assertSame(408, $response['status'] ?? null);
        self::assertTrue($client->isClosedByServer());
    }

    public function testABodyThatArrivesTooSlowlyGets408(): void
    {
        $client = self::client();
        $client->send("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc");

        self::assertSame(408, $client->readResponse()['status'] ?? null);
    }

    public function testAnIdleKeepAliveConnectionIsClosedQuietly(): void
    {
        $client = self::client();
        $client->send("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
        self::assertSame(200, $client->readResponse()['status'] ?? null);

        self::assertTrue($client->isClosedByServer(5.0));
    }

    public function testTheLastRequestAllowedOnAConnectionSaysConnectionClose(): void
    {
        $client = self::client();
        for ($i = 1; $i <= 3; $i++) {
            $client->send("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
            $response = $client->readResponse();
            self::assertSame(200, $response['status'] ?? null);
        }

        self::assertSame(['close'], $response['headers']['connection'] ?? null);
        self::assertTrue($client->isClosedByServer());
    }

    public function testMoreConnectionsThanSelectCanWatchAreCappedAtStart(): void
    {
        $server = ServerProcess::start(['--max-connections=5000', '--workers=1'], environment: ['BOBBIN_LOOP_DRIVER' => 'select'], fileLimit: 4096);
        try {
            $client = new RawClient($server->address);
            $client->send("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
            self::assertSame(200, $client->readResponse()['status'] ?? null);
            $client->close();
            self::assertMatchesRegularExpression('/--max-connections lowered from 5000 to \d{3}: the loop driver can watch descriptors below 1024 only/', $server->log());
        } finally {
            self::assertSame(0, $server->stop());
        }
    }

    public function testALowFileDescriptorLimitCapsConnectionsInsteadOfFailing(): void
    {
        $server = ServerProcess::start(['--max-connections=1000'], fileLimit: 32);
        try {
            $clients = [];
            for ($i = 0; $i < 60; $i++) {
                $clients[] = $client = new RawClient($server->address);
                $client->send("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
            }
            \usleep(300000);
            self::assertTrue($server->isRunning());
            self::assertStringContainsString('--max-connections lowered', $server->log());
            self::assertSame(200, $clients[0]->readResponse()['status'] ?? null);
            foreach ($clients as $client) {
                $client->close();
            }
            // Every client was closed; the server recovers and serves again.
            $client = new RawClient($server->address);
            $client->send("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
            self::assertSame(200, $client->readResponse()['status'] ?? null);
            $client->close();
        } finally {
            self::assertSame(0, $server->stop());
        }
    }

    private static function residentBytes(): int
    {
        $status = (string) \file_get_contents('/proc/' . self::$server?->pid . '/status');
        \preg_match('/VmRSS:\s+(\d+) kB/', $status, $m);

        return (int) $m[1] * 1024;
    }
}
