<?php

declare(strict_types=1);

namespace Bobbin\Tarantool;

use Bobbin\Pool\PoolOptions;
use Bobbin\Pool\PoolSettings;

/** Sizing and time bounds of a ConnectionPool, plus the settings of its connections. */
final class PoolConfig
{
    public function __construct(
        public readonly ConnectionConfig $connection,
        public readonly PoolSettings $pool = new PoolSettings(maxSize: 4),
    ) {
    }

    /**
     * @param string $url tarantool://user:password@host:port (see ConnectionConfig::fromUrl())
     * @param mixed ...$settings by name: the pool's (PoolSettings; maxSize = 4 here) and the
     *        connection's (connectTimeout, requestTimeout: ConnectionConfig::fromUrl())
     */
    public static function fromUrl(#[\SensitiveParameter] string $url, mixed ...$settings): self
    {
        [$pool, $connection] = PoolOptions::split($settings, ['maxSize' => 4]);

        return new self(ConnectionConfig::fromUrl($url, ...$connection), $pool);
    }
}
