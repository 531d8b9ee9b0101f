<?php

declare(strict_types=1);

namespace Bobbin\Mysql;

use Bobbin\Pool\PoolSettings;
use Bobbin\Pool\PoolOptions;

/** Sizing and time bounds of a ConnectionPool, plus the settings of its connections. */
final class PoolConfig
{
    public function __construct(
        public readonly ConnectionConfig $connection,
        public readonly PoolSettings $pool = new PoolSettings(),
    ) {
    }

    /**
     * @param string $url mysql://user:password@host:port/database?… (see ConnectionConfig::fromUrl())
     * @param mixed ...$settings by name: the pool's (minSize, maxSize = 32, acquireTimeout = 5.0,
     *        maxWaiters = 10_000, idleTimeout = 60.0, maxLifetime = 3600.0, checkAfterIdle = 5.0:
     *        PoolSettings) and the connection's (connectTimeout, queryTimeout, statementCacheSize,
     *        decodeJson: ConnectionConfig::fromUrl())
     */
    public static function fromUrl(#[\SensitiveParameter] string $url, mixed ...$settings): self
    {
        [$pool, $connection] = PoolOptions::split($settings);

        return new self(ConnectionConfig::fromUrl($url, ...$connection), $pool);
    }
}
