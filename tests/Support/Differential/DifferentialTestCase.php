<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Differential;

use PHPUnit\Framework\TestCase;
use Random\Engine\Mt19937;
use Random\Randomizer;

/**
 * Differential tests (issue 35): random values written through Bobbin and read through a client
 * nobody here wrote, and the reverse. Every run draws a new seed unless BOBBIN_TEST_SEED gives
 * one; a failure prints the seed, and the same seed draws the same values and the same
 * cancellation plan again (the moment a cancellation lands depends on the machine's timing, so a
 * concurrency failure reproduces in kind, not necessarily to the byte). BOBBIN_TEST_CASES sets
 * the number of cases of every test (each has its own default, small enough for CI).
 */
abstract class DifferentialTestCase extends TestCase
{
    private static ?int $seed = null;

    /** The run's seed (one for every differential test of the run): BOBBIN_TEST_SEED, or a fresh one printed on failure. */
    protected function seed(): int
    {
        if (self::$seed === null) {
            $given = \getenv('BOBBIN_TEST_SEED');
            self::$seed = $given !== false && $given !== '' ? (int) $given : \random_int(1, 2_147_483_647);
        }

        return self::$seed;
    }

    /** A generator of its own per test: one test's draws never depend on which ran before it. */
    protected function random(): Randomizer
    {
        return new Randomizer(new Mt19937($this->seed() ^ \crc32(static::class . '::' . $this->name())));
    }

    /** The number of cases: BOBBIN_TEST_CASES, or the test's own default. */
    protected static function cases(int $default): int
    {
        $given = \getenv('BOBBIN_TEST_CASES');

        return $given !== false && (int) $given > 0 ? (int) $given : $default;
    }

    /** What names the case in an assertion message: the seed and how to run it again. */
    protected function where(string $case): string
    {
        return \sprintf('%s (seed %d: BOBBIN_TEST_SEED=%d vendor/bin/phpunit --filter %s)', $case, $this->seed(), $this->seed(), $this->name());
    }

    protected function onNotSuccessfulTest(\Throwable $t): never
    {
        \fwrite(\STDERR, \sprintf("\n%s::%s failed with seed %d; run it again with BOBBIN_TEST_SEED=%d\n", static::class, $this->name(), $this->seed(), $this->seed()));

        throw $t;
    }
}
