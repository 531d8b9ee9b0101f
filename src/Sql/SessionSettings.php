<?php

declare(strict_types=1);

namespace Bobbin\Sql;

/** The checks of the settings every SQL client's ConnectionConfig has, with one wording. */
final class SessionSettings
{
    private function __construct()
    {
    }

    /** @throws \ValueError for a bound that is not positive or a negative cache size */
    public static function check(float $connectTimeout, ?float $queryTimeout, int $statementCacheSize): void
    {
        if ($connectTimeout <= 0.0) {
            throw new \ValueError('The connect timeout must be positive');
        }
        if ($queryTimeout !== null && $queryTimeout <= 0.0) {
            throw new \ValueError('The query timeout must be positive or null');
        }
        if ($statementCacheSize < 0) {
            throw new \ValueError('The statement cache size cannot be negative');
        }
    }
}
