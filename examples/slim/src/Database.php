<?php

declare(strict_types=1);

namespace App;

use Bobbin\Postgres\ConnectionPool;
use Bobbin\Postgres\PoolConfig;

/**
 * The application's PostgreSQL pool, built once per process from DATABASE_URL: under Bobbin one
 * non-blocking pool for every request of the worker; under PHP-FPM one connection per request
 * (blocking mode, no statement cache: a connection that lives for one request never earns it).
 */
final class Database
{
    private static ?ConnectionPool $pool = null;

    public static function pool(): ConnectionPool
    {
        if (self::$pool !== null) {
            return self::$pool;
        }
        $url = (string) (\getenv('DATABASE_URL') ?: 'postgresql:///postgres');
        $config = \PHP_SAPI === 'cli'
            ? PoolConfig::fromConnectionString($url, maxSize: 8)
            : PoolConfig::fromConnectionString($url, maxSize: 1, statementCacheSize: 0);

        return self::$pool = new ConnectionPool($config);
    }
}
