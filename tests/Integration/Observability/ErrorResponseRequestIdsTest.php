<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Observability;

use Bobbin\Tests\Support\Http\RawClient;
use Bobbin\Tests\Support\Process\MasterProcess;
use PHPUnit\Framework\TestCase;

/**
 * The error responses the server makes itself (500 for an exception or a refused response, 504
 * past --request-timeout or at an abrupt end, 400 for a request it cannot build) carry the
 * request's X-Request-Id, and the log line about the failure names the same id: an operator can
 * match what a user saw to the log.
 */
final class ErrorResponseRequestIdsTest extends TestCase
{
    private const APP = __DIR__ . '/../../Support/Http/test-app.php';
    private const PROCESS_APP = __DIR__ . '/../../Support/Process/app.php';

    private static ?MasterProcess $master = null;

    public static function setUpBeforeClass(): void
    {
        self::$master = MasterProcess::start(self::APP, ['--workers=1', '--job-workers=0', '--request-timeout=0.5']);
    }

    public static function tearDownAfterClass(): void
    {
        self::$master?->stop();
        self::$master = null;
    }

    public function testA500ForAnExceptionCarriesTheRequestIdAndItsLogLineNamesIt(): void
    {
        $response = self::request("GET /throw?generated HTTP/1.1\r\nHost: a\r\n\r\n");

        self::assertSame(500, $response['status']);
        $id = $response['headers']['x-request-id'][0] ?? '';
        self::assertMatchesRegularExpression('/^[0-9a-f]{8}-[0-9a-f]+$/', $id);
        self::master()->waitForLog('~The application failed on GET /throw\?generated \(request ' . \preg_quote($id, '~') . '\): .*secret detail~');
    }

    public function testA500ForAnExceptionCarriesTheClientsOwnId(): void
    {
        $response = self::request("GET /throw?own HTTP/1.1\r\nHost: a\r\nX-Request-Id: user-report-42\r\n\r\n");

        self::assertSame(500, $response['status']);
        self::assertSame(['user-report-42'], $response['headers']['x-request-id'] ?? []);
        // The same exception again within the log's window is summarised: the summary names it.
        self::master()->waitForLog('~The application failed on GET /throw\?\w+ \(request [^)]+\).*user-report-42~');
    }

    public function testA500ForARefusedResponseCarriesTheRequestIdAndItsLogLineNamesIt(): void
    {
        $response = self::request("GET /bad-header?kind=crlf-value HTTP/1.1\r\nHost: a\r\n\r\n");

        self::assertSame(500, $response['status']);
        $id = $response['headers']['x-request-id'][0] ?? '';
        self::assertNotSame('', $id);
        self::master()->waitForLog('~The response to GET /bad-header\?kind=crlf-value \(request ' . \preg_quote($id, '~') . '\) was refused~');
    }

    public function testA504PastTheRequestTimeoutCarriesTheRequestIdAndItsLogLineNamesIt(): void
    {
        $response = self::request("GET /slow?ms=3000 HTTP/1.1\r\nHost: a\r\n\r\n");

        self::assertSame(504, $response['status']);
        $id = $response['headers']['x-request-id'][0] ?? '';
        self::assertNotSame('', $id);
        self::master()->waitForLog('~GET /slow\?ms=3000 \(request ' . \preg_quote($id, '~') . '\) still running after --request-timeout~');
    }

    public function testA400ForARequestThatCannotBeBuiltCarriesTheRequestId(): void
    {
        // The head and the body are read whole; the multipart form in it does not decode.
        $response = self::request("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Type: multipart/form-data; boundary=xyz\r\n"
            . "Content-Length: 7\r\nX-Request-Id: bad-form-1\r\n\r\ngarbage");

        self::assertSame(400, $response['status']);
        self::assertSame(['bad-form-1'], $response['headers']['x-request-id'] ?? []);
    }

    public function testAnAbruptEndAnswersEveryRequestWithItsIdAndTheLogNamesThem(): void
    {
        $master = MasterProcess::start(self::PROCESS_APP, ['--workers=1', '--job-workers=0']);
        try {
            $neighbour = new RawClient($master->address);
            $neighbour->send("GET /slow?ms=3000 HTTP/1.1\r\nHost: a\r\nX-Request-Id: neighbour-7\r\n\r\n");
            \usleep(200_000);
            $culprit = new RawClient($master->address);
            $culprit->send("GET /exit-now HTTP/1.1\r\nHost: a\r\n\r\n");

            $culpritResponse = $culprit->readResponse();
            $neighbourResponse = $neighbour->readResponse();
            self::assertSame(500, $culpritResponse['status'] ?? null);
            self::assertSame(503, $neighbourResponse['status'] ?? null);
            self::assertSame(['neighbour-7'], $neighbourResponse['headers']['x-request-id'] ?? []);
            $id = $culpritResponse['headers']['x-request-id'][0] ?? '';
            self::assertNotSame('', $id);
            $line = $master->waitForLog('~The process ended while handling 2 request\(s\): (.*);~')[1];
            self::assertStringContainsString('GET /slow?ms=3000 (request neighbour-7)', $line);
            self::assertStringContainsString("GET /exit-now (request $id; its code ended the process)", $line);
        } finally {
            $master->kill();
        }
    }

    /** @return array{status: int, reason: string, headers: array<string, list<string>>, body: string, raw: string} */
    private static function request(string $bytes): array
    {
        $client = new RawClient(self::master()->address);
        $client->send($bytes);
        $response = $client->readResponse();
        self::assertNotNull($response, 'the server closed the connection without a response');
        $client->close();

        return $response;
    }

    private static function master(): MasterProcess
    {
        self::assertNotNull(self::$master);

        return self::$master;
    }
}
