<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Mysql;

use Bobbin\Tests\Support\Sql\CancellationOutcomeContract;

/** A cancelled MySQL/MariaDB write is reported as what became of it (CancellationOutcomeContract). */
final class CancellationOutcomeTest extends MysqlTestCase
{
    use CancellationOutcomeContract;

    protected function connectionUnderTest(): object
    {
        return $this->connect();
    }

    protected static function slowInsert(string $table, int $value, float $seconds): string
    {
        return "INSERT INTO $table SELECT SLEEP($seconds) + $value";
    }
}
