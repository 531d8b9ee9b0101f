<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Http;

use Bobbin\Tests\Support\Http\RawClient;
use Bobbin\Tests\Support\Http\ServerProcess;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/** `bin/bobbin serve` as operators and scripts use it: options, exit codes, signals. */
final class ServeCommandTest extends TestCase
{
    private const APP = __DIR__ . '/../../Support/Http/test-app.php';

    public function testHelpListsEveryOptionWithItsEnvironmentVariable(): void
    {
        [$code, $out] = ServerProcess::runToCompletion(['serve', '--help']);

        self::assertSame(0, $code);
        self::assertStringContainsString('--max-body-bytes', $out);
        self::assertStringContainsString('BOBBIN_MAX_BODY_BYTES', $out);
        self::assertStringContainsString('--listen', $out);
        self::assertStringContainsString('--block-stacks', $out);
        self::assertStringContainsString('BOBBIN_BLOCK_STACKS', $out);
        [$code, $out] = ServerProcess::runToCompletion(['--help']);
        self::assertSame(0, $code);
        self::assertStringContainsString('serve APP_FILE', $out);
    }

    /** @return iterable<string, array{list<string>, string}> */
    public static function usageErrors(): iterable
    {
        yield 'unknown option' => [['serve', self::APP, '--colour=blue'], '--colour'];
        yield 'bad value' => [['serve', self::APP, '--max-body-bytes=lots'], '--max-body-bytes'];
        yield 'bad listen address' => [['serve', self::APP, '--listen=nowhere'], '--listen'];
        yield 'missing APP_FILE' => [['serve'], 'APP_FILE'];
        yield 'APP_FILE that does not exist' => [['serve', '/nonexistent/app.php'], '/nonexistent/app.php'];
        yield 'APP_FILE not returning a handler' => [['serve', __DIR__ . '/../../Support/Http/not-a-handler.php'], 'returned int'];
        yield 'workers not a number' => [['serve', self::APP, '--workers=many'], '--workers'];
        yield 'zero workers' => [['serve', self::APP, '--workers=0'], '--workers'];
        yield 'a bad log level' => [['serve', self::APP, '--log-level=chatty'], 'chatty'];
        yield 'unknown command' => [['launch'], 'launch'];
    }

    /** @param list<string> $arguments */
    #[DataProvider('usageErrors')]
    public function testUsageErrorsExitWith2AndOneLineNamingTheProblem(array $arguments, string $named): void
    {
        [$code, , $err] = ServerProcess::runToCompletion($arguments);

        self::assertSame(2, $code);
        self::assertSame(1, \substr_count($err, "\n"), $err);
        self::assertStringContainsString($named, $err);
    }

    public function testAnAppFileThatThrowsWhileLoadingExitsWith1AndOneLine(): void
    {
        [$code, , $err] = ServerProcess::runToCompletion(['serve', __DIR__ . '/../../Support/Http/failing-app.php', '--listen=127.0.0.1:0']);

        self::assertSame(1, $code);
        self::assertSame(1, \substr_count($err, "\n"), $err);
        self::assertStringContainsString('cannot reach the database', $err);
    }

    public function testAnEnvironmentVariableWithABadValueIsAUsageError(): void
    {
        [$code, , $err] = ServerProcess::runToCompletion(['serve', self::APP], ['BOBBIN_IDLE_TIMEOUT' => 'forever']);

        self::assertSame(2, $code);
        self::assertStringContainsString('--idle-timeout', $err);
    }

    public function testAPortAlreadyTakenExitsWith1(): void
    {
        $blocker = \stream_socket_server('tcp://127.0.0.1:0');
        self::assertNotFalse($blocker);
        $address = (string) \stream_socket_get_name($blocker, false);

        [$code, , $err] = ServerProcess::runToCompletion(['serve', self::APP, '--listen=' . $address]);
        \fclose($blocker);

        self::assertSame(1, $code);
        self::assertSame(1, \substr_count($err, "\n"), $err);
        self::assertStringContainsString($address, $err);
    }

    public function testSigtermLetsAnInFlightRequestFinishThenExits0(): void
    {
        $pidFile = \sys_get_temp_dir() . '/bobbin-test-' . \getmypid() . '.pid';
        $server = ServerProcess::start(['--pid-file=' . $pidFile]);
        self::assertSame((string) $server->pid, \trim((string) \file_get_contents($pidFile)));
        $slow = new RawClient($server->address);
        $slow->send("GET /slow?ms=700 HTTP/1.1\r\nHost: a\r\n\r\n");
        $idle = new RawClient($server->address);
        $idle->send("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
        self::assertSame(200, $idle->readResponse()['status'] ?? null);
        \usleep(200000);

        $server->signal(\SIGTERM);
        self::assertTrue($idle->isClosedByServer(), 'An idle keep-alive connection stayed open during the stop');
        $response = $slow->readResponse();
        self::assertSame('slow done', $response['body'] ?? null);
        self::assertSame(['close'], $response['headers']['connection']);
        self::assertSame(0, $server->wait());
        self::assertFileDoesNotExist($pidFile);
        self::assertNull(@\stream_socket_client('tcp://' . $server->address, $code, $message, 1.0) ?: null, 'Still accepting after the stop');
    }

    public function testASecondSignalClosesRequestsInFlightAtOnce(): void
    {
        $server = ServerProcess::start(['--drain-timeout=30']);
        $slow = new RawClient($server->address);
        $slow->send("GET /slow?ms=20000 HTTP/1.1\r\nHost: a\r\n\r\n");
        \usleep(200000);

        $server->signal(\SIGINT);
        \usleep(200000);
        $server->signal(\SIGINT);

        self::assertNull($slow->readResponse());
        self::assertSame(0, $server->wait(5.0));
    }

    public function testSigintStopsToo(): void
    {
        $server = ServerProcess::start();
        $server->signal(\SIGINT);

        self::assertSame(0, $server->wait());
    }

    public function testOptionsComeFromAConfigFileAndTheEnvironmentWithTheCommandLineWinning(): void
    {
        $configFile = \sys_get_temp_dir() . '/bobbin-test-config-' . \getmypid() . '.php';
        \file_put_contents($configFile, "<?php return ['max-body-bytes' => 5, 'server-header' => 'FromFile', 'access-log' => true];");
        try {
            $server = ServerProcess::start(['--config=' . $configFile, '--max-body-bytes=10'], environment: ['BOBBIN_SERVER_HEADER' => 'FromEnv']);
            $client = new RawClient($server->address);
            $client->send("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 8\r\n\r\n12345678");
            $response = $client->readResponse();
            self::assertSame('12345678', $response['body'] ?? null);
            self::assertSame(['FromEnv'], $response['headers']['server']);
            $client->send("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\n12345678901");
            self::assertSame(413, $client->readResponse()['status'] ?? null);
            self::assertSame(0, $server->stop());
            self::assertStringContainsString('"POST /echo HTTP/1.1" 200', $server->log());
        } finally {
            @\unlink($configFile);
        }
    }

    public function testItListensOnAUnixSocket(): void
    {
        $path = \sys_get_temp_dir() . '/bobbin-test-' . \getmypid() . '.sock';
        $server = ServerProcess::start(['--listen=unix:' . $path]);
        try {
            $client = \stream_socket_client('unix://' . $path, $code, $message, 5.0);
            self::assertNotFalse($client);
            \fwrite($client, "GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
            self::assertStringEndsWith('Hello, World!', (string) \stream_get_contents($client));
        } finally {
            self::assertSame(0, $server->stop());
        }
        self::assertFileDoesNotExist($path);
    }
}
