<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Http;

use Bobbin\Tests\Support\Http\ServerProcess;
use PHPUnit\Framework\TestCase;

/**
 * What classic scripts do beside the request and response (issue 37): a form's upload checked
 * and moved with PHP's own move_uploaded_file(), a page sent as it is made with flush(), and
 * what a script's process inherits from its warm worker. Real multipart uploads and real
 * timing, through curl.
 */
class LegacyUploadsAndStreamingTest extends TestCase
{
    /** Where the scripts run (--legacy-runner); LegacyUploadsAndStreamingUnderForkTest runs the same tests with fork. */
    protected const RUNNER = 'pool';

    private const DOCROOT = __DIR__ . '/../../Support/Legacy/classic';

    private static ?ServerProcess $server = null;
    private string $directory = '';

    public static function setUpBeforeClass(): void
    {
        self::$server = ServerProcess::start(['--legacy', '--legacy-runner=' . static::RUNNER, '--workers=1', '--legacy-children=2', '--legacy-docroot=' . self::DOCROOT], '');
    }

    public static function tearDownAfterClass(): void
    {
        self::$server?->stop();
        self::$server = null;
    }

    protected function setUp(): void
    {
        $this->directory = \sys_get_temp_dir() . '/bobbin-legacy-uploads-' . \bin2hex(\random_bytes(4));
        \mkdir($this->directory);
    }

    protected function tearDown(): void
    {
        \exec('rm -rf ' . \escapeshellarg($this->directory));
    }

    /**
     * @param list<string> $arguments
     * @return string curl's output
     */
    private static function curl(array $arguments): string
    {
        \exec(\implode(' ', \array_map('escapeshellarg', ['curl', '-sS', '--max-time', '20', ...$arguments])) . ' 2>&1', $output);

        return \implode("\n", $output);
    }

    public function testAFileUploadedWithTheRequestIsAnUploadedFileAndMoveUploadedFileMovesIt(): void
    {
        $server = self::$server;
        self::assertNotNull($server);
        $source = $this->directory . '/photo.jpg';
        \file_put_contents($source, \str_repeat('pixels', 1000));
        $target = $this->directory . '/moved.jpg';

        $output = self::curl(['-F', 'upload=@' . $source, '-F', 'target=' . $target, $server->url('/upload.php')]);

        self::assertSame([
            'uploaded' => true,
            'other file' => false,
            'move other file' => false,
            'moved' => true,
            'uploaded after the move' => false,
        ], \json_decode($output, true), $output . $server->log());
        self::assertFileEquals($source, $target);
        self::assertFileDoesNotExist($target . '.not');
    }

    public function testAScriptThatExhaustsItsMemoryLimitIsAnswered500AndTheNextRequestIsServed(): void
    {
        $server = self::$server;
        self::assertNotNull($server);

        $exhausted = self::curl(['-o', '/dev/null', '-w', '%{http_code}', $server->url('/exhaust.php')]);
        $next = self::curl(['-o', '/dev/null', '-w', '%{http_code}', $server->url('/upload.php')]);

        self::assertSame('500', $exhausted, $server->log());
        self::assertSame('200', $next);
        self::assertStringContainsString('Allowed memory size', $server->log());
    }

    public function testAScriptsProcessFindsTheDocumentRootsPathsResolvedAlready(): void
    {
        if (static::RUNNER !== 'fork') {
            self::markTestSkipped('The worker warms the realpath cache for forked processes; a pool\'s process keeps its own from its earlier requests, as a PHP-FPM child does');
        }
        $server = self::$server;
        self::assertNotNull($server);

        $output = self::curl([$server->url('/resolved.php')]);

        // The worker resolved them (it never runs them): a PHP-FPM child has them from its
        // earlier requests, a fresh process inherits them.
        self::assertSame(['upload.php' => true, 'stream.php' => true, 'ttl' => 120], \json_decode($output, true), $output);
    }

    public function testPatternsTheWorkerCompiledAheadBehaveAsOnesTheScriptCompiles(): void
    {
        $server = self::$server;
        self::assertNotNull($server);

        $output = self::curl([$server->url('/patterns.php')]);

        self::assertSame([
            'error_get_last' => null,
            'preg_last_error' => \PREG_NO_ERROR,
            'matched' => 1,
            'groups' => ['post-42', 'post', '42'],
            'bad' => false,
            'bad error' => true,
            'warned' => true,
        ], \json_decode($output, true), $output . $server->log());
    }

    public function testWhatAScriptFlushesReachesTheClientBeforeTheScriptEnds(): void
    {
        $server = self::$server;
        self::assertNotNull($server);
        $started = \microtime(true);
        $process = \proc_open(['curl', '-sS', '-N', '-i', '--max-time', '20', $server->url('/stream.php?sleep_ms=1500')], [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        self::assertIsResource($process);

        $received = '';
        while (!\str_contains($received, 'first part') && !\feof($pipes[1])) {
            $received .= (string) \fgets($pipes[1]);
        }
        $firstPartAfter = \microtime(true) - $started;
        $received .= (string) \stream_get_contents($pipes[1]);
        $total = \microtime(true) - $started;
        \proc_close($process);

        self::assertStringContainsString("first part\nsecond part\n", $received);
        self::assertStringContainsStringIgnoringCase('X-Streamed: yes', $received);
        self::assertLessThan(0.9, $firstPartAfter, "the first part came only after {$firstPartAfter}s: " . $received);
        self::assertGreaterThan(1.4, $total);
    }
}
