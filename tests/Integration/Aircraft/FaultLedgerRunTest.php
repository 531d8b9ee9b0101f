<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Aircraft;

use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * bench/faults/ledger at CI size: a Bobbin aircraft server under CRUD load while its database
 * fails — sessions killed every half second, or the server frozen (SIGSTOP) past the request
 * timeout — on PostgreSQL and on MariaDB. Every answer must agree with the rows: no lie (an
 * error answered for a write that committed, a success for one that did not), nothing lost; a
 * 504 that says the outcome is unknown promises nothing. (Restarts run in the benchmark only:
 * docs/BENCHMARKS.md.)
 */
final class FaultLedgerRunTest extends TestCase
{
    /** @return iterable<string, array{list<string>, string}> */
    public static function faults(): iterable
    {
        yield 'PostgreSQL sessions terminated every 0.5 s' => [['--database=pg', '--fault=kill', '--seconds=4', '--interval=0.5'], '/\d+ rounds, [1-9]\d* sessions ended/'];
        yield 'MariaDB sessions killed every 0.5 s' => [['--database=mysql', '--fault=kill', '--seconds=4', '--interval=0.5'], '/\d+ rounds, [1-9]\d* sessions ended/'];
        yield 'MariaDB frozen past a 1 s request timeout' => [['--database=mysql', '--fault=freeze', '--freeze-seconds=2', '--seconds=5', '--request-timeout=1'], '/stopped \(SIGSTOP\) for 2\.0 s/'];
        yield 'PostgreSQL frozen past a 1 s request timeout' => [['--database=pg', '--fault=freeze', '--freeze-seconds=2', '--seconds=5', '--request-timeout=1'], '/stopped \(SIGSTOP\) for 2\.0 s/'];
    }

    /** @param list<string> $options */
    #[DataProvider('faults')]
    public function testNoAnswerContradictsTheDatabaseUnderTheFault(array $options, string $faultHappened): void
    {
        $process = \proc_open(
            [\PHP_BINARY, \dirname(__DIR__, 3) . '/bench/faults/ledger', '--clients=4', ...$options],
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
        self::assertMatchesRegularExpression($faultHappened, $output, 'the fault happened');
    }
}
