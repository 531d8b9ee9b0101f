<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Aircraft;

use Bobbin\Tests\Support\EmbeddedPostgres;
use PHPUnit\Framework\TestCase;

/**
 * bench/faults/pg-terminate at CI size: a Bobbin aircraft server under CRUD load while its
 * PostgreSQL backends are terminated every half second; every answer must agree with the rows.
 */
final class PgTerminateFaultRunTest extends TestCase
{
    public function testNoAnswerContradictsTheDatabaseWhileBackendsAreTerminated(): void
    {
        $script = \dirname(__DIR__, 3) . '/bench/faults/pg-terminate';
        $process = \proc_open(
            [\PHP_BINARY, $script, '--seconds=4', '--clients=4', '--interval=0.5', '--database-url=' . EmbeddedPostgres::connectionString()],
            [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']],
            $pipes,
        );
        self::assertIsResource($process);
        $output = (string) \stream_get_contents($pipes[1]);
        $errors = (string) \stream_get_contents($pipes[2]);
        $exitCode = \proc_close($process);

        self::assertSame(0, $exitCode, $output . $errors);
        self::assertStringContainsString('mismatches: 0', $output);
        self::assertStringContainsString('RESULT: ok', $output);
        self::assertMatchesRegularExpression('/rounds, [1-9]\d* backends terminated/', $output, 'the fault happened');
    }
}
