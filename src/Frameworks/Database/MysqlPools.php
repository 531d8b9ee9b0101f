<?php

declare(strict_types=1);

namespace Bobbin\Frameworks\Database;

use Bobbin\Mysql\ConnectionConfig;
use Bobbin\Mysql\ConnectionPool;
use Bobbin\Mysql\PoolConfig;
use Bobbin\Pool\PoolSettings;

/**
 * One MySQL pool per connection settings per process, as Pools is for PostgreSQL: the
 * framework's connection objects of a worker share it. Under PHP-FPM the pool holds one
 * connection (PHP forgets the pool after each request).
 */
final class MysqlPools
{
    /** @var array<string, ConnectionPool> */
    private static array $pools = [];

    private function __construct()
    {
    }

    /**
     * From the parameters frameworks use: url (mysql://…), or host, port, dbname/database,
     * user/username, password, unix_socket.
     *
     * @param array<string, mixed> $params
     */
    public static function forParameters(#[\SensitiveParameter] array $params, int $maxSize = 16): ConnectionPool
    {
        $config = self::config($params);
        $maxSize = \PHP_SAPI === 'cli' ? $maxSize : 1;
        $key = \serialize([$config, $maxSize]);

        return self::$pools[$key] ??= new ConnectionPool(new PoolConfig($config, new PoolSettings(maxSize: $maxSize)));
    }

    /** @param array<string, mixed> $params */
    private static function config(#[\SensitiveParameter] array $params): ConnectionConfig
    {
        $url = $params['url'] ?? null;
        if (\is_string($url) && $url !== '') {
            return ConnectionConfig::fromUrl($url);
        }
        $text = static function (string ...$keys) use ($params): ?string {
            foreach ($keys as $key) {
                if (isset($params[$key]) && (\is_string($params[$key]) || \is_int($params[$key])) && (string) $params[$key] !== '') {
                    return (string) $params[$key];
                }
            }

            return null;
        };

        return new ConnectionConfig(
            host: $text('host') ?? '127.0.0.1',
            port: (int) ($text('port') ?? 3306),
            user: $text('user', 'username') ?? 'root',
            password: $text('password') ?? '',
            database: $text('dbname', 'database') ?? '',
            unixSocket: $text('unix_socket'),
        );
    }
}
