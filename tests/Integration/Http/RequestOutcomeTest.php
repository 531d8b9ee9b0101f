<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Http;

use Bobbin\Tests\Support\Http\RawClient;
use Bobbin\Tests\Support\Http\ServerProcess;
use PHPUnit\Framework\TestCase;

/**
 * What a client is told past --request-timeout is what happened (FailedRequest): not done (503,
 * try again), done (the application's own answer, once its work finished), or unknown (504,
 * `"outcome":"unknown"`), never a 503 for work that went on.
 */
final class RequestOutcomeTest extends TestCase
{
    private static ?ServerProcess $server = null;

    public static function setUpBeforeClass(): void
    {
        self::$server = ServerProcess::start(['--request-timeout=0.3']);
    }

    public static function tearDownAfterClass(): void
    {
        self::$server?->stop();
        self::$server = null;
    }

    /** @return array{status: int, headers: array<string, list<string>>, body: string, seconds: float} */
    private static function get(string $target): array
    {
        $client = new RawClient((string) self::$server?->address);
        $started = \microtime(true);
        $client->send("GET $target HTTP/1.1\r\nHost: a\r\n\r\n");
        $response = $client->readResponse();
        $client->close();

        return ['status' => $response['status'] ?? 0, 'headers' => $response['headers'] ?? [], 'body' => $response['body'] ?? '', 'seconds' => \microtime(true) - $started];
    }

    public function testWorkThatTheDeadlineCancelledIsNotDone503WithRetryAfter(): void
    {
        $response = self::get('/outcome?kind=cancellable');

        self::assertSame(503, $response['status'], $response['body']);
        self::assertSame(['1'], $response['headers']['retry-after'] ?? null);
        self::assertLessThan(1.0, $response['seconds'], 'A cancellation that ends the request is answered at once');
    }

    public function testWorkThatFinishesSoonAfterTheDeadlineGetsTheApplicationsOwnAnswer(): void
    {
        $response = self::get('/outcome?kind=finishes&ms=800');

        self::assertSame(201, $response['status'], 'The write finished: "unavailable" would be a lie');
        self::assertSame('written', $response['body']);
    }

    public function testWorkStillRunningWhenTheSettleTimeEndsIsAnsweredOutcomeUnknown(): void
    {
        $response = self::get('/outcome?kind=finishes&ms=5000');

        self::assertSame(504, $response['status']);
        self::assertSame(['application/json'], $response['headers']['content-type'] ?? null);
        self::assertSame('unknown', \json_decode($response['body'], true)['outcome'] ?? null);
        self::assertLessThan(2.5, $response['seconds'], 'bounded: the deadline and the settle time');
    }

    public function testAConnectionLostUnderAStatementIsAnsweredOutcomeUnknownNot500(): void
    {
        $response = self::get('/outcome?kind=lost');

        self::assertSame(504, $response['status']);
        self::assertSame('unknown', \json_decode($response['body'], true)['outcome'] ?? null);
    }
}
