<?php

declare(strict_types=1);

namespace Bobbin\Mysql;

use Bobbin\Pool\PoolSettings;

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
     * @see PoolSettings for the pool's own settings
     */
    public static function fromUrl(
        #[\SensitiveParameter] string $url,
        int $minSize = 0,
        int $maxSize = 32,
        float $acquireTimeout = 5.0,
        int $maxWaiters = 10_000,
        float $idleTimeout = 60.0,
        float $maxLifetime = 3600.0,
        float $checkAfterIdle = 5.0,
        float $connectTimeout = 10.0,
        ?float $queryTimeout = null,
        int $statementCacheSize = 256,
        bool $decodeJson = false,
    ): self {
        return new self(
            ConnectionConfig::fromUrl($url, $connectTimeout, $queryTimeout, $statementCacheSize, $decodeJson),
            new PoolSettings($minSize, $maxSize, $acquireTimeout, $maxWaiters, $idleTimeout, $maxLifetime, $checkAfterIdle),
        );
    }
}
