<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Http;

use Bobbin\Tests\Support\FpmServer;
use Bobbin\Tests\Support\Http\ServerProcess;
use PHPUnit\Framework\TestCase;

/**
 * `bin/bobbin serve --legacy` runs a plain-PHP application written for PHP-FPM (a form, a
 * cookie, a session, a redirect with exit) and answers, response by response, what nginx +
 * PHP-FPM answers for the same file (the reference, in this test).
 */
class LegacyModeTest extends TestCase
{
    /** Where the scripts run (--legacy-runner); LegacyModeUnderForkTest runs the same tests with fork. */
    protected const RUNNER = 'pool';

    private const SCRIPT = __DIR__ . '/../../Support/Legacy/index.php';
    /** The conversation, in order: method, path, extra curl arguments. */
    private const CONVERSATION = [
        ['GET', '/', []],
        ['POST', '/login', ['--data', 'name=Ann']],
        ['GET', '/', []],
        ['POST', '/login', ['--data', 'name=']],
        ['POST', '/echo?q=2&q2[]=a', ['--data', 'x=1&y[k]=v', '-b', 'extra=1']],
        ['PUT', '/echo', ['-H', 'Content-Type: application/json', '--data', '{"json":true}']],
        ['POST', '/echo', ['-F', 'upload=@' . __FILE__, '-F', 'field=f']],
        ['GET', '/logout', []],
        ['GET', '/', []],
        ['GET', '/fail', []],
        ['GET', '/fatal', []],
        ['GET', '/fatal-page', []],
        ['GET', '/fatal-shown', []],
        ['GET', '/', []],
    ];

    private static ?ServerProcess $bobbin = null;
    private static ?FpmServer $fpm = null;

    public static function setUpBeforeClass(): void
    {
        self::$bobbin = ServerProcess::start(['--legacy', '--legacy-runner=' . static::RUNNER, '--workers=1'], self::SCRIPT);
        self::$fpm = FpmServer::start('', ['--front-controller=' . self::SCRIPT]);
    }

    public static function tearDownAfterClass(): void
    {
        self::$bobbin?->stop();
        self::$fpm?->stop();
    }

    /**
     * @return list<array{status: int, headers: array<string, list<string>>, body: string}>
     */
    private static function converse(string $base): array
    {
        $jar = \tempnam(\sys_get_temp_dir(), 'bobbin-jar');
        $responses = [];
        try {
            foreach (self::CONVERSATION as [$method, $path, $arguments]) {
                $command = ['curl', '-sS', '--max-time', '10', '-i', '-c', $jar, '-b', $jar, '-X', $method, ...$arguments, $base . $path];
                $process = \proc_open($command, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
                self::assertIsResource($process);
                $raw = (string) \stream_get_contents($pipes[1]);
                $errors = (string) \stream_get_contents($pipes[2]);
                self::assertSame(0, \proc_close($process), $errors);
                $responses[] = self::parse($raw);
            }
        } finally {
            @\unlink($jar);
        }

        return $responses;
    }

    /** @return array{status: int, headers: array<string, list<string>>, body: string} */
    private static function parse(string $raw): array
    {
        [$head, $body] = \explode("\r\n\r\n", $raw, 2) + [1 => ''];
        $lines = \explode("\r\n", $head);
        \preg_match('~^HTTP/1\.1 (\d{3})~', (string) \array_shift($lines), $m);
        $headers = [];
        foreach ($lines as $line) {
            [$name, $value] = \explode(':', $line, 2);
            $name = \strtolower($name);
            // What differs by nature: the server, the date, the framing, Bobbin's request id, a session's random id.
            if (\in_array($name, ['server', 'date', 'content-length', 'connection', 'transfer-encoding', 'keep-alive', 'x-request-id'], true)) {
                continue;
            }
            $headers[$name][] = (string) \preg_replace('/PHPSESSID=[^;]+/', 'PHPSESSID=…', \trim($value));
        }
        \ksort($headers);

        $body = (string) \preg_replace('/"PHPSESSID":"[^"]+"/', '"PHPSESSID":"…"', $body);

        return ['status' => (int) ($m[1] ?? 0), 'headers' => $headers, 'body' => $body];
    }

    public function testEveryResponseOfTheConversationIsWhatPhpFpmAnswers(): void
    {
        $bobbin = self::converse('http://' . self::$bobbin?->address);
        $fpm = self::converse('http://127.0.0.1:' . self::$fpm?->port);

        foreach (self::CONVERSATION as $i => [$method, $path]) {
            self::assertSame($fpm[$i], $bobbin[$i], "response $i to $method $path");
        }
        self::assertStringContainsString('Hello, Ann (visit 2)', $bobbin[2]['body']);
        self::assertSame(['/'], $bobbin[1]['headers']['location'] ?? null);
    }

    public function testTheScriptsExitAndFailuresEndOnlyTheirRequestAndFailuresAreLogged(): void
    {
        $log = (string) self::$bobbin?->log();

        self::assertStringNotContainsString('[warning] Worker', $log, 'an exit() or a fatal error ended the worker');
        self::assertStringNotContainsString('ended its worker', $log);
        self::assertStringContainsString('The legacy script failed on GET /fail', $log);
        self::assertStringContainsString('The legacy script failed on GET /fatal-page', $log);
    }
}
