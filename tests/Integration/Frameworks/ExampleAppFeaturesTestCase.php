<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Frameworks;

use Bobbin\Tests\Support\EmbeddedPostgres;
use Bobbin\Tests\Support\Frameworks\AppServer;
use Bobbin\Tests\Support\Frameworks\CurlStream;
use Bobbin\Tests\Support\Frameworks\ExampleApp;
use Bobbin\Tests\Support\Frameworks\Requests;
use Bobbin\Tests\Support\HttpResponse;
use Bobbin\Tests\Support\WebSocket\WebSocketClient;
use PHPUnit\Framework\TestCase;

/**
 * The example applications' own feature tests: reading and writing the database through the
 * framework's own layer (Doctrine DBAL and Laravel's query builder on Bobbin's pool, Bobbin's
 * pool in Slim), validation, a unique violation as 409, a multipart upload, a session that
 * follows its cookie, streamed responses whose events arrive as they are flushed. Each app runs
 * them under Bobbin and under nginx + PHP-FPM.
 */
abstract class ExampleAppFeaturesTestCase extends TestCase
{
    protected static ?AppServer $server = null;

    abstract protected static function app(): ExampleApp;

    abstract protected static function startServer(): AppServer;

    protected static function hasSessions(): bool
    {
        return static::app() !== ExampleApp::Slim;
    }

    public static function setUpBeforeClass(): void
    {
        if (!static::app()->isInstalled()) {
            self::markTestSkipped('examples/' . static::app()->value . ' is not installed: run scripts/install-frameworks');
        }
        // The table is the example's to create, with its own command (twice: a second run changes nothing).
        EmbeddedPostgres::psql('DROP TABLE IF EXISTS fw_items');
        self::createSchema();
        self::createSchema();
        EmbeddedPostgres::psql("INSERT INTO fw_items (name) VALUES ('first'), ('second')");
        static::$server = static::startServer();
    }

    private static function createSchema(): void
    {
        foreach (static::app()->schemaCommands() as $command) {
            self::runCommand($command);
        }
    }

    /** @param list<string> $command */
    private static function runCommand(array $command): void
    {
        $process = \proc_open($command, [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['redirect', 1]], $pipes, static::app()->directory(), ['DATABASE_URL' => EmbeddedPostgres::connectionString(), 'PATH' => (string) \getenv('PATH')]);
        self::assertIsResource($process);
        $output = (string) \stream_get_contents($pipes[1]);
        \fclose($pipes[1]);
        self::assertSame(0, \proc_close($process), \implode(' ', $command) . ":\n" . $output);
    }

        public static function tearDownAfterClass(): void
    {
        static::$server?->stop();
        static::$server = null;
    }

    /** @param array<string, string> $headers */
    private static function send(string $method, string $target, array $headers = [], string $body = ''): HttpResponse
    {
        $server = static::$server;
        self::assertNotNull($server);

        return Requests::one($server->host, $server->port, $method, $target, $headers + ['Accept' => 'application/json'], $body);
    }

    public function testAnItemIsReadFromTheDatabaseAsJson(): void
    {
        $found = self::send('GET', '/items/2');
        $missing = self::send('GET', '/items/999');

        self::assertSame(200, $found->status, $found->body);
        self::assertSame(['id' => 2, 'name' => 'second'], $found->json());
        self::assertSame(404, $missing->status);
    }

    public function testAFormPostCreatesAnItemAndADuplicateIsAConflictAndAnEmptyNameIsRefused(): void
    {
        $form = ['Content-Type' => 'application/x-www-form-urlencoded'];
        $name = 'item ' . \bin2hex(\random_bytes(4));

        $created = self::send('POST', '/items', $form, 'name=' . \rawurlencode($name));
        $duplicate = self::send('POST', '/items', $form, 'name=' . \rawurlencode($name));
        $empty = self::send('POST', '/items', $form, 'name=');

        self::assertSame(201, $created->status, $created->body);
        $item = (array) $created->json();
        self::assertSame($name, $item['name']);
        self::assertSame(['id' => $item['id'], 'name' => $name], self::send('GET', '/items/' . $item['id'])->json());
        self::assertSame(409, $duplicate->status, $duplicate->body);
        self::assertSame(422, $empty->status, $empty->body);
    }

    public function testAMultipartUploadArrivesWithItsField(): void
    {
        $contents = \random_bytes(3000) . "\r\n--not-a-boundary\r\n";
        [$type, $body] = Requests::multipart(['field' => 'value'], ['document' => ['report.bin', $contents]]);

        $response = self::send('POST', '/upload', ['Content-Type' => $type], $body);

        self::assertSame(200, $response->status, $response->body);
        self::assertSame(['field' => 'value', 'name' => 'report.bin', 'size' => \strlen($contents), 'sha1' => \sha1($contents)], $response->json());
    }

    public function testTheSessionFollowsItsCookieAndOnlyItsCookie(): void
    {
        if (!static::hasSessions()) {
            self::markTestSkipped(static::app()->value . ' has no session of its own');
        }
        $first = self::send('GET', '/visits');
        $cookie = \explode(';', (string) \array_values(\array_filter(
            $first->headers['set-cookie'] ?? [],
            static fn (string $c): bool => !\str_starts_with($c, 'XSRF-TOKEN='),
        ))[0])[0];
        $second = self::send('GET', '/visits', ['Cookie' => $cookie]);
        $stranger = self::send('GET', '/visits');

        self::assertSame(['visits' => 1], $first->json());
        self::assertSame(['visits' => 2], $second->json());
        self::assertSame(['visits' => 1], $stranger->json());
    }

    /**
     * The app's streamed routes (four events 300 ms apart) and the texts each sends, in order.
     *
     * @return array<string, list<string>>
     */
    private static function streams(): array
    {
        $events = ['data: event 1', 'data: event 2', 'data: event 3', 'data: event 4'];

        return match (static::app()) {
            ExampleApp::Symfony => ['/stream/events?count=4&ms=300' => $events, '/stream/json?count=4&ms=300' => ['{"n":1}', '{"n":2}', '{"n":3}', '{"n":4}]}']],
            ExampleApp::Laravel => ['/stream/events?count=4&ms=300' => $events, '/stream/chunks?count=4&ms=300' => $events],
            ExampleApp::Slim => ['/stream/events?count=4&ms=300' => $events],
        };
    }

    public function testEachEventOfAStreamedResponseArrivesWhenItIsFlushedNotAtTheEnd(): void
    {
        $server = static::$server;
        self::assertNotNull($server);
        foreach (self::streams() as $target => $texts) {
            $stream = CurlStream::read($server->url($target));

            $arrivals = \array_map($stream->arrivalOf(...), $texts);
            self::assertNotContains(null, $arrivals, "$target sent: " . $stream->body());
            self::assertSame($arrivals, \array_values(\array_unique($arrivals)), "$target: each text arrives on its own, " . \json_encode($stream->pieces));
            // Three waits of 300 ms between the first text and the last.
            self::assertGreaterThan(0.6, \end($arrivals) - $arrivals[0], "$target: " . \json_encode($stream->pieces));
        }
    }

    public function testAFlushedEventArrivesAtOnceEvenWhenTheCallbackSleepsWithoutWaitingOnTheLoop(): void
    {
        if (static::app() === ExampleApp::Slim) {
            self::markTestSkipped('a streamed callback of Symfony or Laravel');
        }
        $server = static::$server;
        self::assertNotNull($server);

        // Each event echoed, flushed, then a blocking usleep(300 ms): the callback runs 0.9 s.
        $stream = CurlStream::read($server->url('/stream/blocking?count=3&ms=300'));

        $arrivals = \array_map($stream->arrivalOf(...), ['data: event 1', 'data: event 2', 'data: event 3']);
        self::assertNotContains(null, $arrivals, 'sent: ' . $stream->body());
        self::assertSame($arrivals, \array_values(\array_unique($arrivals)), 'each event arrives on its own: ' . \json_encode($stream->pieces));
        self::assertGreaterThan(0.45, \end($arrivals) - $arrivals[0], 'the first event arrived well before the callback ended: ' . \json_encode($stream->pieces));
    }

    public function testAHeadRequestForAStreamGetsTheHeadAloneAndTheNextRequestIsServed(): void
    {
        $server = static::$server;
        self::assertNotNull($server);

        $head = self::send('HEAD', '/stream/events?count=2&ms=50');
        $next = self::send('GET', '/health');

        self::assertSame(200, $head->status);
        self::assertStringStartsWith('text/event-stream', $head->headers['content-type'][0] ?? '');
        self::assertSame('', $head->body);
        self::assertSame(200, $next->status);
    }

    public function testTwoStreamsAtOnceEachSeeTheirOwnRequestInTheirCallback(): void
    {
        if (static::app() !== ExampleApp::Laravel) {
            self::markTestSkipped('Laravel\'s request() in a streamed callback');
        }
        $server = static::$server;
        self::assertNotNull($server);
        $streams = \array_map(
            static fn (string $tag): array => ['GET', "/stream/chunks?count=3&ms=200&tag=$tag", []],
            ['first', 'second'],
        );

        [$first, $second] = Requests::concurrently($server->host, $server->port, [...$streams, ['GET', '/probe/7?q=probe&ms=100', []]]);

        self::assertSame("data: event 1 of first\n\ndata: event 2 of first\n\ndata: event 3 of first\n\n", $first->body);
        self::assertSame("data: event 1 of second\n\ndata: event 2 of second\n\ndata: event 3 of second\n\n", $second->body);
    }

    public function testAClientThatHangsUpMidStreamCancelsTheStreamAndTheNextRequestIsServed(): void
    {
        $server = static::$server;
        self::assertNotNull($server);
        if (!$server->isBobbin()) {
            self::markTestSkipped('PHP-FPM stops a script whose client left at its next write, without a cancellation to observe');
        }
        $token = \bin2hex(\random_bytes(6));
        $file = \sys_get_temp_dir() . '/bobbin-stream-' . $token;
        $start = \microtime(true);

        $stream = CurlStream::read($server->url("/stream/events?count=40&ms=300&token=$token"), 'data: event', 2);
        // The app writes its outcome with file_put_contents(): the file exists a moment before
        // its contents do, so wait for the contents (an empty read failed a full run once).
        $outcome = '';
        while ($outcome === '' && \microtime(true) - $start < 8.0) {
            \usleep(20000);
            $outcome = (string) @\file_get_contents($file);
        }
        $ended = \microtime(true) - $start;
        $outcome = $outcome === '' ? 'still running' : $outcome;
        @\unlink($file);

        self::assertStringContainsString('data: event 2', $stream->body());
        if (static::app() === ExampleApp::Slim) {
            // A generator (EventStream) waits in its own wait, which the cancellation ends, or sits
            // at a yield when a write finds the client gone, and is dropped (its `finally` runs).
            self::assertContains($outcome, ['cancelled', 'interrupted'], $server->log());
        } else {
            self::assertSame('cancelled', $outcome, $server->log());
        }
        self::assertLessThan(3.0, $ended, 'the stream of 40 events 300 ms apart ended soon after the client left');
        self::assertSame(200, Requests::one($server->host, $server->port, 'GET', '/health')->status);
    }

    public function testARouteAcceptsAWebSocketThatGreetsWithTheRoutesRequestAndEchoes(): void
    {
        $server = static::$server;
        self::assertNotNull($server);
        if (!$server->isBobbin()) {
            self::markTestSkipped('PHP-FPM cannot hand a connection over');
        }
        $client = WebSocketClient::connect($server->host . ':' . $server->port, '/ws?name=ada', 5.0, [
            'Sec-WebSocket-Protocol' => 'echo.v2, echo.v1',
            'Sec-WebSocket-Extensions' => 'permessage-deflate',
        ]);

        self::assertSame('echo.v1', $client->responseHeader('Sec-WebSocket-Protocol'));
        self::assertSame([0x1, 'hello ada from websocket (echo.v1)', true], $client->readFrame());
        self::assertSame(200, self::send('GET', '/health')->status, 'other requests are served while the WebSocket is open');
        $client->sendText('one');
        $client->sendText('two');
        self::assertSame([0x1, 'echo: one', true], $client->readFrame());
        self::assertSame([0x1, 'echo: two', true], $client->readFrame());
        $client->sendFrame(0x8, \pack('n', 1000));
        self::assertSame([1000, ''], $client->readClose());
        self::assertTrue($client->isClosedByServer());
    }

    public function testAnUploadedFileIsValidAndTheAppCanStoreIt(): void
    {
        if (static::app() !== ExampleApp::Laravel) {
            self::markTestSkipped('Laravel\'s `file` rule and store()');
        }
        $contents = \random_bytes(2000);
        [$type, $body] = Requests::multipart([], ['document' => ['report.bin', $contents]]);

        $response = self::send('POST', '/upload/store', ['Content-Type' => $type], $body);

        self::assertSame(200, $response->status, $response->body);
        $stored = (array) $response->json();
        self::assertTrue($stored['valid']);
        self::assertSame(\sha1($contents), $stored['sha1']);
        self::assertSame(\sha1($contents), $stored['moved_sha1']);
        self::assertStringStartsWith('uploads/', (string) $stored['stored']);
    }

    public function testAnEmptyFileInputIsNoFileAsUnderPhpFpm(): void
    {
        if (static::app() === ExampleApp::Slim) {
            self::markTestSkipped('PSR-7 keeps an empty file input as an UploadedFile with UPLOAD_ERR_NO_FILE, under PHP-FPM too');
        }
        [$type, $body] = Requests::multipart(['field' => 'value'], ['document' => ['', '']]);

        $response = self::send('POST', '/upload/optional', ['Content-Type' => $type], $body);

        self::assertSame(200, $response->status, $response->body);
        self::assertSame(['file' => null, 'has' => false], $response->json());
    }
}
