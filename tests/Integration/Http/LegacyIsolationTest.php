<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Http;

use Bobbin\Tests\Support\Http\ServerProcess;
use PHPUnit\Framework\TestCase;

/**
 * `--legacy` gives every request the clean PHP state PHP-FPM gives it (issue 37): nothing a
 * request declared, set, opened or registered is visible to the next one on the same worker.
 */
class LegacyIsolationTest extends TestCase
{
    /** Where the scripts run (--legacy-runner); LegacyIsolationUnderForkTest runs the same tests with fork. */
    protected const RUNNER = 'pool';

    private const DIRECTORY = __DIR__ . '/../../Support/Legacy/isolation';

    private static ?ServerProcess $server = null;
    private static ?ServerProcess $dashboard = null;

    public static function setUpBeforeClass(): void
    {
        self::$server = ServerProcess::start(['--legacy', '--legacy-runner=' . static::RUNNER, '--workers=1'], self::DIRECTORY . '/index.php');
        self::$dashboard = ServerProcess::start(['--legacy', '--legacy-runner=' . static::RUNNER, '--workers=1'], self::DIRECTORY . '/dashboard.php');
    }

    public static function tearDownAfterClass(): void
    {
        self::$server?->stop();
        self::$dashboard?->stop();
        self::$server = self::$dashboard = null;
    }

    /**
     * @param list<string> $urls
     * @param list<string> $curlArguments
     * @return array{string, string} output and errors
     */
    private static function curl(array $urls, array $curlArguments = []): array
    {
        $process = \proc_open(['curl', '-sS', '--max-time', '20', ...$curlArguments, ...$urls], [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        self::assertIsResource($process);
        $output = (string) \stream_get_contents($pipes[1]);
        $errors = (string) \stream_get_contents($pipes[2]);
        \proc_close($process);

        return [$output, $errors];
    }

    public function testARequestSeesNothingAnEarlierRequestOnTheSameWorkerLeftBehind(): void
    {
        $server = self::$server;
        self::assertNotNull($server);
        // One connection, so both requests surely reach the one worker, one after the other.
        [$output, $errors] = self::curl([$server->url('/leave'), $server->url('/check'), $server->url('/check')]);
        self::assertStringStartsWith('left', $output, $errors);
        $reports = \explode('}{', \substr($output, \strlen('left')));
        self::assertCount(2, $reports, $output);

        foreach ([$reports[0] . '}', '{' . $reports[1]] as $json) {
            $seen = \json_decode($json, true);
            self::assertIsArray($seen, $json);
            self::assertSame([
                'function' => false,
                'class' => false,
                'constant' => false,
                'global' => false,
                'shutdown_global' => false,
                'static_variable' => 1,
                'static_property' => 1,
                'session' => false,
                'session_status' => false,
                'precision' => (string) \ini_get('precision'),
                'error_handler' => false,
                'exception_handler' => false,
                'open_files' => 0,
                'included_leftover' => false,
            ], \array_diff_key($seen, ['headers' => true]), $json);
            self::assertIsArray($seen['headers']);
            self::assertNotContains('X-Leftover: 1', $seen['headers']);
        }
    }

    public function testAnAnonymousClientNeverSeesThePageOfALoggedInClientServedBeforeIt(): void
    {
        $server = self::$dashboard;
        self::assertNotNull($server);
        $urls = \array_fill(0, 100, $server->url('/wp-admin/'));
        // Two clients at once, each on its own connection, on one worker: 200 requests interleaved.
        $admin = \proc_open(['curl', '-sS', '--max-time', '60', '-b', 'auth=admin-secret', ...$urls], [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $adminPipes);
        [$anonymous, $errors] = self::curl($urls, ['--max-time', '60']);
        self::assertIsResource($admin);
        $adminOutput = (string) \stream_get_contents($adminPipes[1]);
        \proc_close($admin);

        self::assertSame(100, \substr_count($anonymous, '[please log in]'), $anonymous . $errors);
        self::assertSame(0, \substr_count($anonymous, '[dashboard'), $anonymous);
        self::assertSame(100, \substr_count($adminOutput, '[dashboard of admin]'), $adminOutput);
    }

    public function testWithSharedStateWhatARequestLeavesIsSeenByTheNextAsThatModeSays(): void
    {
        $shared = ServerProcess::start(['--legacy', '--legacy-shared-state', '--workers=1'], self::DIRECTORY . '/dashboard.php');
        try {
            self::curl([$shared->url('/')], ['-b', 'auth=admin-secret']);
            [$anonymous] = self::curl([$shared->url('/')]);
        } finally {
            $shared->stop();
        }

        self::assertSame('[dashboard of admin]', $anonymous);
    }

    public function testTheLegacyOptionsAreRefusedWithoutLegacy(): void
    {
        [$code, , $errors] = ServerProcess::runToCompletion(['serve', self::DIRECTORY . '/index.php', '--legacy-shared-state']);

        self::assertSame(2, $code, $errors);
        self::assertStringContainsString('--legacy-shared-state goes with --legacy', $errors);
    }
}
