<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Http;

use Bobbin\Tests\Support\Http\Curl;
use Bobbin\Tests\Support\Http\ServerProcess;
use PHPUnit\Framework\TestCase;

/**
 * What the legacy pool (--legacy-runner=pool, native/legacy-pool) adds to the legacy mode's
 * tests that both runners pass: what PHP-FPM gives scripts beside PHP (fastcgi_finish_request(),
 * getallheaders()), a process that dies replaced, the pool gone with its worker.
 */
final class LegacyPoolTest extends TestCase
{
    private const DOCROOT = __DIR__ . '/../../Support/Legacy/pool';

    private static ?ServerProcess $server = null;

    public static function setUpBeforeClass(): void
    {
        // One process in the pool: what one request holds, the next waits for.
        self::$server = ServerProcess::start(['--legacy', '--legacy-runner=pool', '--workers=1', '--legacy-children=1', '--legacy-docroot=' . self::DOCROOT], '');
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

    private static function server(): ServerProcess
    {
        self::assertNotNull(self::$server);

        return self::$server;
    }

    public function testFastcgiFinishRequestAnswersTheClientWhileTheScriptRunsOnHoldingItsProcess(): void
    {
        $marker = \sys_get_temp_dir() . '/bobbin-pool-finish-' . \bin2hex(\random_bytes(4));
        $started = \microtime(true);

        [$answer, $errors] = self::curl([self::server()->url('/finish.php?marker=' . \rawurlencode($marker))]);
        $answeredAfter = \microtime(true) - $started;
        $markedBeforeAnswer = \is_file($marker);
        // The pool's one process is still running the script: this request waits for it.
        [$pid] = self::curl([self::server()->url('/pid.php')]);
        $markedBeforeNext = \is_file($marker);
        @\unlink($marker);

        self::assertSame('answered', $answer, $errors . self::server()->log());
        self::assertLessThan(0.7, $answeredAfter, 'the response waited for the script to end');
        self::assertFalse($markedBeforeAnswer);
        self::assertTrue($markedBeforeNext, 'the next request ran before the script had ended');
        self::assertMatchesRegularExpression('/^\d+$/', $pid);
    }

    public function testABodyLargerThanTheSocketsBufferArrivesWholeInPhpInput(): void
    {
        $file = (string) \tempnam(\sys_get_temp_dir(), 'bobbin-pool-body-');
        $body = \random_bytes(3 << 20); // under php.ini's post_max_size (8M), over any socket buffer
        \file_put_contents($file, $body);
        try {
            [$output, $errors] = self::curl(['-H', 'Content-Type: application/octet-stream', '--data-binary', '@' . $file, self::server()->url('/input.php')]);
        } finally {
            @\unlink($file);
        }

        self::assertSame(\strlen($body) . ' ' . \md5($body), $output, $errors . self::server()->log());
    }

    public function testGetallheadersGivesTheRequestsHeadersUnderTheNamesPhpFpmGivesThem(): void
    {
        [$output, $errors] = self::curl(['-H', 'X-Custom-Thing: a b', '-H', 'Content-Type: text/plain', '--data-binary', 'payload', self::server()->url('/headers.php')]);
        $seen = \json_decode($output, true);

        self::assertIsArray($seen, $output . $errors);
        self::assertSame('fpm-fcgi', $seen['sapi']);
        self::assertTrue($seen['opcache'], 'opcache caches scripts in the pool');
        self::assertSame('a b', $seen['headers']['X-Custom-Thing'] ?? null);
        self::assertSame('text/plain', $seen['headers']['Content-Type'] ?? null);
        self::assertSame('7', $seen['headers']['Content-Length'] ?? null);
        self::assertSame('127.0.0.1:' . self::server()->port, $seen['headers']['Host'] ?? null);
        self::assertTrue($seen['same']);
        self::assertSame('payload', $seen['input']);
    }

    public function testAPoolProcessThatDiesIsReplacedAndOnlyItsOwnClientGetsAnError(): void
    {
        [$before] = self::curl([self::server()->url('/pid.php')]);

        [$status] = self::curl(['-o', '/dev/null', '-w', '%{http_code}', self::server()->url('/crash.php')]);
        [$after, $errors] = self::curl(['-w', ' %{http_code}', self::server()->url('/pid.php')]);

        self::assertSame('500', $status, self::server()->log());
        self::assertMatchesRegularExpression('/^\d+ 200$/', $after, $errors);
        self::assertNotSame($before . ' 200', $after, 'the process that died answered again');
    }

    public function testThePoolEndsWithItsWorkerEvenOneKilledOutright(): void
    {
        $server = ServerProcess::start(['--legacy', '--legacy-runner=pool', '--single-process', '--legacy-children=2', '--legacy-docroot=' . self::DOCROOT], '');
        [$pid] = self::curl([$server->url('/pid.php')]);
        $pool = \array_values(\array_filter(
            self::descendants($server->pid),
            static fn (int $p): bool => \str_ends_with((string) @\readlink("/proc/$p/exe"), '/bobbin-legacy-pool'),
        ));
        \preg_match('/--socket-path=(\S+)/', \str_replace("\0", ' ', (string) @\file_get_contents('/proc/' . \min($pool ?: [0]) . '/cmdline')), $socket);

        // Killed outright, the worker cannot stop its pool: the pool goes by itself, socket file and all.
        $server->kill();
        $deadline = \microtime(true) + 5.0;
        while (\microtime(true) < $deadline && \array_filter($pool, static fn (int $p): bool => \is_dir("/proc/$p") && !\str_contains((string) @\file_get_contents("/proc/$p/stat"), ') Z ')) !== []) {
            \usleep(20_000);
        }

        self::assertContains((int) $pid, $pool);
        self::assertCount(3, $pool, 'the pool: its master and two processes');
        self::assertNotEmpty($socket[1] ?? '', 'the pool was told its socket\'s file');
        self::assertFileDoesNotExist($socket[1]);
        self::assertSame([], \array_values(\array_filter($pool, static fn (int $p): bool => \is_dir("/proc/$p") && !\str_contains((string) @\file_get_contents("/proc/$p/stat"), ') Z '))));
    }

    public function testThePoolRunsWithTheTracingJitAndTheUsersOwnPhpSettingsWin(): void
    {
        [$defaults] = self::curl([self::server()->url('/settings.php')]);
        $server = ServerProcess::start(
            ['--legacy', '--legacy-runner=pool', '--single-process', '--legacy-memory-limit=64M', '--legacy-docroot=' . self::DOCROOT],
            '',
            phpOptions: ['-d', 'precision=7', '-d', 'opcache.jit=off', '-d', 'memory_limit=1G'],
        );
        try {
            [$given, $errors] = self::curl([$server->url('/settings.php')]);
        } finally {
            $server->stop();
        }

        self::assertSame(['precision' => '14', 'memory_limit' => '128M', 'jit' => true], \json_decode($defaults, true), $defaults);
        // memory_limit is --legacy-memory-limit's: the worker's own is not the scripts'.
        self::assertSame(['precision' => '7', 'memory_limit' => '64M', 'jit' => false], \json_decode($given, true), $given . $errors);
    }

    public function testAScriptThatUsesBobbinsClassesFailsWithALogThatNamesTheForkRunner(): void
    {
        [$status] = self::curl(['-o', '/dev/null', '-w', '%{http_code}', self::server()->url('/jobs.php')]);

        self::assertSame('500', $status);
        self::assertStringContainsString('Class "Bobbin\\Jobs\\Jobs" not found', self::server()->log());
        self::assertStringContainsString('need --legacy-runner=fork', self::server()->log());
    }

    public function testTheRunnerOptionIsCheckedBeforeTheServerStarts(): void
    {
        $script = self::DOCROOT . '/pid.php';
        [$bogus, , $bogusErrors] = ServerProcess::runToCompletion(['serve', '--legacy', '--legacy-runner=threads', $script]);
        [$alone, , $aloneErrors] = ServerProcess::runToCompletion(['serve', '--legacy-runner=pool', $script]);
        [$shared, , $sharedErrors] = ServerProcess::runToCompletion(['serve', '--legacy', '--legacy-shared-state', '--legacy-runner=fork', $script]);
        [$unbuilt, , $unbuiltErrors] = ServerProcess::runToCompletion(['serve', '--legacy', '--legacy-runner=pool', $script], ['BOBBIN_LEGACY_POOL' => '/nonexistent/bobbin-legacy-pool']);

        self::assertSame([2, 2, 2, 2], [$bogus, $alone, $shared, $unbuilt], $bogusErrors . $aloneErrors . $sharedErrors . $unbuiltErrors);
        self::assertStringContainsString('--legacy-runner is pool or fork', $bogusErrors);
        self::assertStringContainsString('--legacy-runner goes with --legacy', $aloneErrors);
        self::assertStringContainsString('--legacy-shared-state runs scripts in the worker itself', $sharedErrors);
        self::assertStringContainsString('native/legacy-pool/build', $unbuiltErrors);
    }

    public function testWithoutThePoolsProgramTheForkRunnerServesAndSaysWhy(): void
    {
        $server = ServerProcess::start(['--legacy', '--single-process', '--legacy-docroot=' . self::DOCROOT], '', ['BOBBIN_LEGACY_POOL' => '/nonexistent/bobbin-legacy-pool']);
        try {
            [$pid] = self::curl([$server->url('/pid.php')]);
            [$again] = self::curl([$server->url('/pid.php')]);
        } finally {
            $server->stop();
        }

        self::assertMatchesRegularExpression('/^\d+$/', $pid);
        self::assertNotSame($pid, $again, 'a process per request');
        self::assertStringContainsString('--legacy forks a process per request', $server->log());
    }

    /** @return list<int> */
    private static function descendants(int $root): array
    {
        $parents = [];
        foreach (\glob('/proc/[0-9]*/stat') ?: [] as $file) {
            $stat = (string) @\file_get_contents($file);
            $fields = \explode(' ', \substr($stat, (int) \strrpos($stat, ')') + 2));
            if (isset($fields[1])) {
                $parents[(int) \basename(\dirname($file))] = (int) $fields[1];
            }
        }
        $found = [];
        $frontier = [$root];
        while ($frontier !== []) {
            $parent = \array_pop($frontier);
            foreach ($parents as $pid => $ppid) {
                if ($ppid === $parent) {
                    $found[] = $pid;
                    $frontier[] = $pid;
                }
            }
        }

        return $found;
    }
}
