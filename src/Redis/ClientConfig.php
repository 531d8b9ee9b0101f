<?php

declare(strict_types=1);

namespace Bobbin\Redis;

use Bobbin\Pool\PoolSettings;

/** A Client's settings: its connections', the pool of dedicated connections, the client-side cache. */
final class ClientConfig
{
    /**
     * @param PoolSettings $pool the dedicated connections (transactions, blocking commands)
     * @param int $cacheSize client-side caching of get(): at most this many values (0: off; RESP3 only)
     */
    public function __construct(
        public readonly ConnectionConfig $connection,
        public readonly PoolSettings $pool = new PoolSettings(maxSize: 8),
        public readonly int $cacheSize = 0,
    ) {
        if ($cacheSize < 0) {
            throw new \ValueError('The cache size cannot be negative');
        }
    }

    /** @see ConnectionConfig::fromUrl() for the URL */
    public static function fromUrl(
        #[\SensitiveParameter] string $url,
        int $poolMaxSize = 8,
        float $acquireTimeout = 5.0,
        int $cacheSize = 0,
        ?float $commandTimeout = null,
    ): self {
        $connection = ConnectionConfig::fromUrl($url);
        if ($commandTimeout !== null) {
            $connection = $connection->with(commandTimeout: $commandTimeout);
        }

        return new self($connection, new PoolSettings(maxSize: $poolMaxSize, acquireTimeout: $acquireTimeout), $cacheSize);
    }
}
