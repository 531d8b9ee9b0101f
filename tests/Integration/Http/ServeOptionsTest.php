<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Http;

use Bobbin\Tests\Support\Http\ServerProcess;
use Bobbin\Tests\Support\HttpClient;
use PHPUnit\Framework\TestCase;

/** What `bin/bobbin serve` makes of its command line. */
final class ServeOptionsTest extends TestCase
{
    private const APP = __DIR__ . '/../../Support/Process/ini-app.php';

    /** @return iterable<string, array{list<string>}> */
    public static function unknownOptions(): iterable
    {
        yield 'last' => [['serve', self::APP, '--no-such-option']];
        yield 'first' => [['serve', '--no-such-option', self::APP]];
        yield 'with a value' => [['serve', self::APP, '--no-such-option=3']];
    }

    /** @param list<string> $arguments */
    #[\PHPUnit\Framework\Attributes\DataProvider('unknownOptions')]
    public function testAnUnknownOptionIsReportedAsUnknownWhereverItStands(array $arguments): void
    {
        [$code, , $err] = ServerProcess::runToCompletion($arguments);

        self::assertSame(2, $code, $err);
        self::assertStringContainsString('Unknown option --no-such-option', $err);
    }

    public function testTheBodyLimitTakesAUnit(): void
    {
        $server = ServerProcess::start(['--single-process', '--job-workers=0', '--max-body-bytes=1K'], self::APP);
        try {
            $client = new HttpClient('127.0.0.1', $server->port);

            self::assertSame(200, $client->request('POST', '/', \str_repeat('x', 1024))->status);
            self::assertSame(413, $client->request('POST', '/', \str_repeat('x', 1025))->status);
        } finally {
            $server->stop();
        }
    }
}
