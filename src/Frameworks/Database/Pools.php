<?php

declare(strict_types=1);

namespace Bobbin\Frameworks\Database;

use Bobbin\Postgres\ConnectionPool;
use Bobbin\Postgres\PoolConfig;

/**
 * One PostgreSQL pool per connection string per process, for framework connections configured
 * by parameters: a Symfony container or a Laravel database manager may create several
 * connection objects for the same database, and they share the worker's pool. Under PHP-FPM a
 * pool holds one connection and no statement cache (PHP forgets the pool after each request);
 * DATABASE_PERSISTENT=1 makes that connection persistent (pg_pconnect: one per FPM child, kept
 * across requests), as apps/aircraft does.
 */
final class Pools
{
    /** @var array<string, ConnectionPool> */
    private static array $pools = [];

    private function __construct()
    {
    }

    public static function forConnectionString(#[\SensitiveParameter] string $connectionString, int $maxSize = 16): ConnectionPool
    {
        return self::$pools[$connectionString . '#' . $maxSize] ??= new ConnectionPool(\PHP_SAPI === 'cli'
            ? PoolConfig::fromConnectionString($connectionString, maxSize: $maxSize)
            : PoolConfig::fromConnectionString($connectionString, maxSize: 1, statementCacheSize: 0, persistent: \getenv('DATABASE_PERSISTENT') === '1'));
    }

    /**
     * A libpq connection string from the parameters frameworks use (host, port, dbname, user,
     * password), or their dsn or url as it is (a libpq key=value string or a postgresql:// URL).
     *
     * @param array<string, mixed> $params
     */
    public static function connectionString(#[\SensitiveParameter] array $params): string
    {
        foreach (['dsn', 'url'] as $key) {
            if (isset($params[$key]) && \is_string($params[$key]) && $params[$key] !== '') {
                return $params[$key];
            }
        }
        $parts = [];
        foreach (['host' => 'host', 'port' => 'port', 'dbname' => 'dbname', 'database' => 'dbname', 'user' => 'user', 'username' => 'user', 'password' => 'password', 'sslmode' => 'sslmode', 'sslrootcert' => 'sslrootcert', 'tls_insecure' => 'tls_insecure', 'application_name' => 'application_name'] as $key => $name) {
            if (isset($params[$key]) && (\is_string($params[$key]) || \is_int($params[$key])) && (string) $params[$key] !== '' && !isset($parts[$name])) {
                $parts[$name] = $name . "='" . \addcslashes((string) $params[$key], "'\\") . "'";
            }
        }

        return \implode(' ', $parts);
    }
}
