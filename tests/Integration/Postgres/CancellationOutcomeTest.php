<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Postgres;

use Bobbin\Tests\Support\Sql\CancellationOutcomeContract;

/** A cancelled PostgreSQL write is reported as what became of it (CancellationOutcomeContract). */
final class CancellationOutcomeTest extends PostgresTestCase
{
    use CancellationOutcomeContract;

    protected function connectionUnderTest(): object
    {
        return $this->connect();
    }

    protected static function slowInsert(string $table, int $value, float $seconds): string
    {
        return "INSERT INTO $table SELECT $value FROM pg_sleep($seconds)";
    }
}
