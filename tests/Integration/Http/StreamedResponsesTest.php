<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Http;

use Bobbin\Tests\Support\Frameworks\CurlStream;
use Bobbin\Tests\Support\Http\ServerProcess;
use PHPUnit\Framework\TestCase;

/**
 * A PSR-15 handler's body produced while it is sent (EventStream over a generator that waits
 * between events), read by curl -N: each event arrives when it is yielded, the head before the
 * first, a long stream is not taken for a slow client, and a client that leaves stops the
 * generator through the request's cancellation.
 */
final class StreamedResponsesTest extends TestCase
{
    private static ?ServerProcess $server = null;

    public static function setUpBeforeClass(): void
    {
        // A write timeout and a data-rate window far shorter than the streams: waiting on the
        // generator is neither a stuck write nor a slow reader.
        self::$server = ServerProcess::start(['--workers=1', '--write-timeout=1', '--data-rate-window=1', '--min-data-rate=2000', '--request-timeout=5']);
    }

    public static function tearDownAfterClass(): void
    {
        self::$server?->stop();
        self::$server = null;
    }

    private static function server(): ServerProcess
    {
        self::assertNotNull(self::$server);

        return self::$server;
    }

    public function testEachEventArrivesWhenTheGeneratorYieldsIt(): void
    {
        $stream = CurlStream::read(self::server()->url('/events?count=4&ms=300'));

        $arrivals = \array_map($stream->arrivalOf(...), ['data: event 1', 'data: event 2', 'data: event 3', 'data: event 4']);
        self::assertNotContains(null, $arrivals, $stream->body());
        self::assertSame("id: 1\ndata: event 1\n\nid: 2\ndata: event 2\n\nid: 3\ndata: event 3\n\nid: 4\ndata: event 4\n\n", $stream->body());
        for ($i = 1; $i < 4; $i++) {
            self::assertGreaterThan(0.2, $arrivals[$i] - $arrivals[$i - 1], \json_encode($stream->pieces));
        }
    }

    public function testTheHeadArrivesBeforeTheFirstEventIsReady(): void
    {
        // A socket of our own: curl -i holds the head back until the body's first bytes.
        $socket = \stream_socket_client('tcp://' . self::server()->address, $errno, $error, 5);
        self::assertNotFalse($socket, $error);
        \stream_set_timeout($socket, 5);
        \fwrite($socket, "GET /events?count=1&first_ms=600 HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
        $start = \microtime(true);
        $head = (string) \fread($socket, 65536);
        $headArrived = \microtime(true) - $start;
        $rest = (string) \stream_get_contents($socket);
        $eventArrived = \microtime(true) - $start;
        \fclose($socket);

        self::assertStringStartsWith("HTTP/1.1 200 OK\r\n", $head);
        self::assertStringContainsString("Transfer-Encoding: chunked\r\n", $head);
        self::assertStringContainsString("Cache-Control: no-cache\r\n", $head);
        self::assertStringEndsWith("\r\n\r\n", $head, 'the head alone, before the event');
        self::assertLessThan(0.3, $headArrived);
        self::assertSame("15\r\nid: 1\ndata: event 1\n\n\r\n0\r\n\r\n", $rest);
        self::assertGreaterThan(0.5, $eventArrived);
    }

    public function testAStreamLongerThanTheWriteTimeoutAndSlowerThanTheMinimumRateIsNotCut(): void
    {
        $stream = CurlStream::read(self::server()->url('/events?count=8&ms=350'));

        self::assertStringEndsWith("data: event 8\n\n", $stream->body(), self::server()->log());
        self::assertGreaterThan(2.0, (float) $stream->arrivalOf('data: event 8'));
    }

    public function testASourceThatGivesNothingForLongerThanTheRequestTimeoutHasItsResponseCut(): void
    {
        $server = ServerProcess::start(['--workers=1', '--request-timeout=1']);
        try {
            $start = \microtime(true);
            $stream = CurlStream::read($server->url('/events?count=2&ms=4000'));
            $ended = \microtime(true) - $start;
            $log = $server->log();
        } finally {
            $server->stop();
        }

        self::assertSame("id: 1\ndata: event 1\n\n", $stream->body());
        self::assertLessThan(3.5, $ended);
        self::assertStringContainsString('the response body gave no next piece within --request-timeout of 1 s; the response was cut', $log);
    }

    public function testAClientThatLeavesMidStreamCancelsTheGeneratorsWaitAndTheWorkerGoesOn(): void
    {
        $token = \bin2hex(\random_bytes(6));
        $file = \sys_get_temp_dir() . '/bobbin-stream-' . $token;
        $start = \microtime(true);

        $stream = CurlStream::read(self::server()->url("/events?count=40&ms=300&token=$token"), 'data: event', 2);
        while (!\is_file($file) && \microtime(true) - $start < 8.0) {
            \usleep(20000);
        }
        $outcome = \is_file($file) ? (string) \file_get_contents($file) : 'still running';
        $ended = \microtime(true) - $start;
        @\unlink($file);

        self::assertStringContainsString('data: event 2', $stream->body());
        // Ended in its wait by the request's cancellation (the sweeper saw the client hang up),
        // or dropped at a yield when a write found the client gone: either way, not running on.
        self::assertContains($outcome, ['cancelled', 'abandoned'], self::server()->log());
        self::assertLessThan(3.0, $ended);
        self::assertSame("id: 1\ndata: event 1\n\n", CurlStream::read(self::server()->url('/events?count=1'))->body());
        self::assertStringNotContainsString('[error]', self::server()->log());
    }
}
