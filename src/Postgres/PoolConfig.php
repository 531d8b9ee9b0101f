<?php

declare(strict_types=1);

namespace Bobbin\Postgres;

use Bobbin\Pool\PoolSettings;
use Bobbin\Pool\PoolOptions;

/** Sizing and time bounds of a ConnectionPool, plus the settings of its connections. */
final class PoolConfig
{
    private readonly PoolSettings $settings;

    /**
     * @param int $minSize connections the idle sweeper keeps open
     * @param int $maxSize most connections open at once (lazily opened up to this)
     * @param float $acquireTimeout seconds a caller waits for a free connection before PoolTimeoutException
     * @param int $maxWaiters callers allowed to wait at once; one more fails at once
     * @param float $idleTimeout an idle connection above minSize is closed after this many seconds
     * @param float $maxLifetime a connection is closed (when idle) after this many seconds
     * @param float $checkAfterIdle a connection idle longer than this is pinged before reuse
     */
    public function __construct(
        public readonly ConnectionConfig $connection,
        public readonly int $minSize = 0,
        public readonly int $maxSize = 32,
        public readonly float $acquireTimeout = 5.0,
        public readonly int $maxWaiters = 10_000,
        public readonly float $idleTimeout = 60.0,
        public readonly float $maxLifetime = 3600.0,
        public readonly float $checkAfterIdle = 5.0,
    ) {
        // The shared pool's settings validate the sizes and timeouts.
        $this->settings = new PoolSettings($minSize, $maxSize, $acquireTimeout, $maxWaiters, $idleTimeout, $maxLifetime, $checkAfterIdle);
    }

    /** The sizing and time bounds as the shared pool takes them. */
    public function poolSettings(): PoolSettings
    {
        return $this->settings;
    }

    /**
     * @param string $url postgresql://user:password@host:port/database?… (see ConnectionConfig::fromUrl())
     * @param mixed ...$settings by name: the pool's (minSize, maxSize = 32, acquireTimeout = 5.0,
     *        maxWaiters = 10_000, idleTimeout = 60.0, maxLifetime = 3600.0, checkAfterIdle = 5.0:
     *        PoolSettings) and the connection's (connectTimeout, queryTimeout, statementCacheSize,
     *        decodeJson, persistent, tlsInsecure: ConnectionConfig::fromUrl())
     * @throws \ValueError for anything but a postgresql:// or postgres:// URL, or settings out of range
     */
    public static function fromUrl(#[\SensitiveParameter] string $url, mixed ...$settings): self
    {
        [$pool, $connection] = PoolOptions::split($settings);

        return self::of(ConnectionConfig::fromUrl($url, ...$connection), $pool);
    }

    /**
     * @param string $connectionString libpq key/value ("host=… dbname=…") or URI
     * @param mixed ...$settings by name, as fromUrl() takes them (the connection's: ConnectionConfig's constructor)
     */
    public static function fromConnectionString(#[\SensitiveParameter] string $connectionString, mixed ...$settings): self
    {
        [$pool, $connection] = PoolOptions::split($settings);

        return self::of(new ConnectionConfig($connectionString, ...$connection), $pool);
    }

    private static function of(ConnectionConfig $connection, PoolSettings $pool): self
    {
        return new self($connection, $pool->minSize, $pool->maxSize, $pool->acquireTimeout, $pool->maxWaiters, $pool->idleTimeout, $pool->maxLifetime, $pool->checkAfterIdle);
    }
}
