<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Process;

use PHPUnit\Framework\TestCase;

/** The room MemoryHeadroom gives a shutdown function after memory_limit ended the script. */
final class MemoryHeadroomTest extends TestCase
{
    private const SCRIPT = <<<'PHP'
        require %s;
        $release = Bobbin\Process\MemoryHeadroom::forLastWords();
        register_shutdown_function(static function () use ($release): void {
            if (%s) {
                $release();
            }
            $words = str_repeat('w', 1_500_000);
            fwrite(STDOUT, 'last words: ' . strlen($words) . ' limit ' . ini_get('memory_limit'));
        });
        $hog = [];
        while (true) {
            $hog[] = str_repeat('h', 100_000);
        }
        PHP;

    public function testAShutdownFunctionStillAllocatesAfterTheLimitEndedTheScript(): void
    {
        [$output, $errors] = $this->exhaust(true, '16M');

        self::assertStringContainsString('Allowed memory size of 16777216 bytes exhausted', $errors);
        self::assertSame('last words: 1500000 limit ' . (16 * 1024 * 1024 + (2 << 20)), $output);
    }

    public function testWithoutItTheShutdownFunctionFailsToo(): void
    {
        [$output, $errors] = $this->exhaust(false, '16M');

        self::assertSame('', $output, 'The script no longer shows what the headroom is for');
        self::assertSame(2, \substr_count($errors, 'Allowed memory size of 16777216 bytes exhausted'));
    }

    public function testNoLimitStaysNoLimit(): void
    {
        $output = (string) \shell_exec(\sprintf(
            '%s -d memory_limit=-1 -r %s',
            \escapeshellarg(\PHP_BINARY),
            \escapeshellarg(\sprintf('require %s; Bobbin\Process\MemoryHeadroom::forLastWords()(); echo ini_get("memory_limit");', \var_export(\dirname(__DIR__, 3) . '/vendor/autoload.php', true))),
        ));

        self::assertSame('-1', $output);
    }

    /** @return array{string, string} stdout and stderr of a script that exhausts $limit */
    private function exhaust(bool $release, string $limit): array
    {
        $code = \sprintf(self::SCRIPT, \var_export(\dirname(__DIR__, 3) . '/vendor/autoload.php', true), $release ? 'true' : 'false');
        $process = \proc_open([\PHP_BINARY, '-d', 'memory_limit=' . $limit, '-d', 'display_errors=stderr', '-d', 'log_errors=0', '-r', $code], [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        self::assertIsResource($process);
        $output = (string) \stream_get_contents($pipes[1]);
        $errors = (string) \stream_get_contents($pipes[2]);
        \proc_close($process);

        return [$output, $errors];
    }
}
