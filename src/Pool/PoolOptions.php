<?php

declare(strict_types=1);

namespace Bobbin\Pool;


/**
 * The settings a client's PoolConfig factory takes by name, split once for every client: the
 * pool's own (PoolSettings' constructor parameters: minSize, maxSize, acquireTimeout,
 * maxWaiters, idleTimeout, maxLifetime, checkAfterIdle, with its defaults and checks) and the
 * rest, which go on to the client's ConnectionConfig factory — its typed parameters check them,
 * and a name neither knows is PHP's "Unknown named parameter" error.
 */
final class PoolOptions
{
    /** PoolSettings' constructor parameters (tests/Unit/Pool/PoolOptionsTest keeps them in step). */
    public const POOL_SETTINGS = ['minSize', 'maxSize', 'acquireTimeout', 'maxWaiters', 'idleTimeout', 'maxLifetime', 'checkAfterIdle'];

    private function __construct()
    {
    }

    /**
     * @param array<int|string, mixed> $settings named arguments, as a variadic parameter collects them
     * @param array<string, mixed> $poolDefaults the client's own defaults for pool settings (Tarantool's smaller maxSize)
     * @return array{PoolSettings, array<string, mixed>} the pool's settings, and the connection's by name
     * @throws \ValueError for a setting given by position, or pool settings out of range
     */
    public static function split(#[\SensitiveParameter] array $settings, array $poolDefaults = []): array
    {
        $pool = $poolDefaults;
        $connection = [];
        foreach ($settings as $name => $value) {
            if (\is_int($name)) {
                throw new \ValueError('Pool and connection settings are given by name, as in maxSize: 16, queryTimeout: 5.0');
            }
            if (\in_array($name, self::POOL_SETTINGS, true)) {
                $pool[$name] = $value;
            } else {
                $connection[$name] = $value;
            }
        }

        return [new PoolSettings(...$pool), $connection];
    }
}
