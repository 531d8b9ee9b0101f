<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Process;

use Bobbin\Tests\Support\Http\RawClient;
use Bobbin\Tests\Support\Http\ServerProcess;
use Bobbin\Tests\Support\Process\MasterProcess;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * exit(), die and a fatal error inside a request end their worker (PHP gives no way to contain
 * them in-process): the request gets a 500, the requests beside it a 503, the log names them,
 * the worker is replaced and the next requests are served. Alone (--single-process) the server
 * ends, but says why and leaves no pid file behind.
 */
final class AbruptEndsTest extends TestCase
{
    private const APP = __DIR__ . '/../../Support/Process/app.php';

    private ?MasterProcess $master = null;

    protected function tearDown(): void
    {
        $this->master?->kill();
    }

    /** @return iterable<string, array{string, string}> */
    public static function endings(): iterable
    {
        yield 'exit()' => ['/exit-now', 'exit\(\) or die was called'];
        yield 'die' => ['/die-now', 'exit\(\) or die was called'];
        yield 'an exhausted memory_limit' => ['/oom', 'fatal error: Allowed memory size of \d+ bytes exhausted'];
    }

    #[DataProvider('endings')]
    public function testTheRequestGets500ItsNeighbours503AndTheWorkerIsReplaced(string $path, string $cause): void
    {
        $this->master = $master = MasterProcess::start(self::APP, ['--workers=1', '--memory-limit=64M']);
        $before = $master->waitForReadyWorkers(static fn (array $pids): bool => \count($pids) === 1);
        $neighbour = new RawClient($master->address);
        $neighbour->send("GET /slow?ms=3000 HTTP/1.1\r\nHost: a\r\n\r\n");
        \usleep(200_000);

        $client = new RawClient($master->address);
        $client->send("GET $path HTTP/1.1\r\nHost: a\r\n\r\n");

        self::assertSame(500, $client->readResponse()['status'] ?? null);
        self::assertSame(503, $neighbour->readResponse()['status'] ?? null);
        $master->waitForReadyWorkers(static fn (array $pids): bool => \count($pids) === 1 && $pids !== $before, 5.0);
        self::assertMatchesRegularExpression(
            '#\[critical\] The process ended while handling 2 request\(s\): (GET /slow\?ms=3000 \(request [^)]+\), GET ' . \preg_quote($path, '#') . ' \(request [^;]+; its code ended the process\)|GET ' . \preg_quote($path, '#') . ' \(request [^;]+; its code ended the process\), GET /slow\?ms=3000 \(request [^)]+\)); ' . $cause . '#',
            $master->log(),
        );
        $next = new RawClient($master->address);
        $next->send("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
        self::assertSame('hello', $next->readResponse()['body'] ?? null);
        self::assertSame(0, $master->stop());
    }

    public function testAWriteInTheApplicationsHandsWhenAnotherRequestEndsTheWorkerIsAnsweredOutcomeUnknown(): void
    {
        // Its statement may already be with the database, which finishes it after the worker is
        // gone: "503, try again" would invite a second write (the soak found thousands).
        $this->master = $master = MasterProcess::start(self::APP, ['--workers=1']);
        $master->waitForReadyWorkers(static fn (array $pids): bool => \count($pids) === 1);
        $write = new RawClient($master->address);
        $write->send("POST /slow?ms=3000 HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n");
        $read = new RawClient($master->address);
        $read->send("GET /slow?ms=3000 HTTP/1.1\r\nHost: a\r\n\r\n");
        \usleep(200_000);

        $client = new RawClient($master->address);
        $client->send("GET /exit-now HTTP/1.1\r\nHost: a\r\n\r\n");

        self::assertSame(500, $client->readResponse()['status'] ?? null);
        $written = $write->readResponse();
        self::assertSame(504, $written['status'] ?? null);
        self::assertSame('unknown', \json_decode($written['body'] ?? '', true)['outcome'] ?? null);
        $readAnswer = $read->readResponse();
        self::assertSame(503, $readAnswer['status'] ?? null, 'a GET changed nothing: try again');
        self::assertSame(['1'], $readAnswer['headers']['retry-after'] ?? null);
        self::assertSame(0, $master->stop());
    }

    public function testASingleProcessEndedByExitSaysWhyAndLeavesNoPidFile(): void
    {
        $pidFile = \sys_get_temp_dir() . '/bobbin-abrupt-' . \getmypid() . '.pid';
        $server = ServerProcess::start(['--single-process', '--pid-file=' . $pidFile], self::APP);
        self::assertFileExists($pidFile);
        $client = new RawClient($server->address);
        $client->send("GET /exit-now HTTP/1.1\r\nHost: a\r\n\r\n");

        self::assertSame(500, $client->readResponse()['status'] ?? null);
        self::assertSame(4, $server->wait(5.0));
        self::assertMatchesRegularExpression('#The process ended while handling 1 request\(s\): GET /exit-now \(request [^;]+; its code ended the process\); exit\(\) or die was called#', $server->log());
        self::assertFileDoesNotExist($pidFile);
    }
}
