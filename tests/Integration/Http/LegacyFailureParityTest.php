<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Http;

use Bobbin\Tests\Support\Http\Curl;
use Bobbin\Tests\Support\Http\ServerProcess;
use PHPUnit\Framework\TestCase;

/**
 * How a legacy script's failures end (issue 37, item 3): exit() ends its own request only, a
 * fatal error's 500 closes its connection, a script past --request-timeout is killed and its
 * client told the outcome is unknown.
 */
class LegacyFailureParityTest extends TestCase
{
    /** Where the scripts run (--legacy-runner); LegacyFailureParityUnderForkTest runs the same tests with fork. */
    protected const RUNNER = 'pool';

    private const SCRIPT = __DIR__ . '/../../Support/Legacy/isolation/index.php';

    private static ?ServerProcess $server = null;

    public static function setUpBeforeClass(): void
    {
        self::$server = ServerProcess::start(['--legacy', '--legacy-runner=' . static::RUNNER, '--workers=1', '--legacy-children=2', '--request-timeout=1'], self::SCRIPT);
    }

    public static function tearDownAfterClass(): void
    {
        self::$server?->stop();
        self::$server = null;
    }

    /**
     * @param list<string> $arguments
     * @return array{string, string} output and errors
     */
    private static function curl(array $arguments): array
    {
        return Curl::run($arguments);
    }

    public function testExitEndsOnlyItsOwnRequestAndEveryRequestQueuedBehindItIsAnswered(): void
    {
        $server = self::$server;
        self::assertNotNull($server);
        $urls = \array_fill(0, 10, $server->url('/exit'));

        // Ten at once on one worker running two scripts at a time: eight wait in its queue.
        [$output, $errors] = self::curl(['-Z', '--parallel-max', '10', '-w', '[%{http_code}]', ...$urls]);

        // Parallel transfers interleave their output: bodies and statuses are counted apart.
        self::assertSame(10, \substr_count($output, 'exited'), $output . $errors);
        self::assertSame(10, \substr_count($output, '[200]'), $output . $errors);
        self::assertStringNotContainsString('not reached', $output);
        self::assertStringNotContainsString('[warning] Worker', $server->log());
    }

    public function testAFatalErrorAnswers500AndClosesItsConnection(): void
    {
        $server = self::$server;
        self::assertNotNull($server);

        [$output, $errors] = self::curl(['-i', $server->url('/fatal')]);

        self::assertMatchesRegularExpression('~^HTTP/1\.1 500 ~', $output, $errors);
        self::assertMatchesRegularExpression('~\r\nConnection: close\r\n~i', $output);
        self::assertStringContainsString('The legacy script failed on GET /fatal', $server->log());
        self::assertStringContainsString('undefined_function_of_the_test', $server->log());
    }

    public function testAScriptPastItsDeadlineIsKilledAndItsClientToldTheOutcomeIsUnknown(): void
    {
        $server = self::$server;
        self::assertNotNull($server);
        $pidFile = \tempnam(\sys_get_temp_dir(), 'bobbin-legacy-pid');
        try {
            $started = \microtime(true);
            [$output, $errors] = self::curl(['-i', $server->url('/sleep?pid_file=' . \rawurlencode($pidFile))]);
            $took = \microtime(true) - $started;

            self::assertMatchesRegularExpression('~^HTTP/1\.1 504 ~', $output, $errors);
            self::assertStringContainsString('"outcome":"unknown"', $output);
            self::assertLessThan(5.0, $took);
            $pid = (int) \file_get_contents($pidFile);
            self::assertGreaterThan(0, $pid);
            \usleep(200000);
            self::assertFalse(\posix_kill($pid, 0), 'the script\'s process still runs');
        } finally {
            @\unlink($pidFile);
        }
    }
}
