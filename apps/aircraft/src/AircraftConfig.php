<?php

declare(strict_types=1);

namespace Bobbin\Apps\Aircraft;

/**
 * Settings of the aircraft application, the same for both entry points
 * (shared/contracts/entry-points.md).
 */
final class AircraftConfig
{
    public function __construct(
        public readonly string $databaseUrl,
        public readonly int $poolMax = 32,
        public readonly float $poolWait = 5.0,
        /** PHP-FPM and PostgreSQL only: keep one persistent connection per FPM child (pg_pconnect). */
        public readonly bool $persistentConnection = false,
        /** Bobbin only: connections opened when a worker starts and kept open while idle. */
        public readonly int $poolMin = 0,
        /** REDIS_URL: GET /aircraft/{id} cached in Redis (null: no cache). */
        public readonly ?string $redisUrl = null,
    ) {
        if ($poolMax < 1) {
            throw new \InvalidArgumentException('DATABASE_POOL_MAX must be at least 1');
        }
        if ($poolMin < 0 || $poolMin > $poolMax) {
            throw new \InvalidArgumentException(\sprintf('DATABASE_POOL_MIN must be between 0 and DATABASE_POOL_MAX (%d), got %d', $poolMax, $poolMin));
        }
        if ($persistentConnection && $this->usesMysql()) {
            throw new \InvalidArgumentException('DATABASE_PERSISTENT=1 is for PostgreSQL (pg_pconnect); MySQL connects per request under PHP-FPM');
        }
        if ($poolWait <= 0) {
            throw new \InvalidArgumentException('DATABASE_POOL_WAIT must be a positive number of seconds');
        }
    }

    /** Whether DATABASE_URL names MySQL or MariaDB (mysql://, mariadb://) rather than PostgreSQL. */
    public function usesMysql(): bool
    {
        return \preg_match('#^(mysql|mariadb)://#i', $this->databaseUrl) === 1;
    }

    /** @param array<string, string> $env usually getenv() */
    public static function fromEnvironment(array $env): self
    {
        $url = $env['DATABASE_URL'] ?? '';
        if ($url === '') {
            $url = self::embeddedClusterUrl();
        }

        return new self(
            $url,
            self::integer($env, 'DATABASE_POOL_MAX', 32),
            self::number($env, 'DATABASE_POOL_WAIT', 5.0),
            \filter_var($env['DATABASE_PERSISTENT'] ?? '0', \FILTER_VALIDATE_BOOL),
            self::integer($env, 'DATABASE_POOL_MIN', 0),
            ($env['REDIS_URL'] ?? '') === '' ? null : $env['REDIS_URL'],
        );
    }

    /** The demo's private cluster, written by scripts/pg when it starts. */
    private static function embeddedClusterUrl(): string
    {
        $file = \dirname(__DIR__, 3) . '/var/pg/url';
        $url = \is_file($file) ? \trim((string) \file_get_contents($file)) : '';
        if ($url === '') {
            throw new \RuntimeException('DATABASE_URL is not set and the embedded PostgreSQL was never started (run scripts/pg start)');
        }

        return $url;
    }

    /** @param array<string, string> $env */
    private static function integer(array $env, string $name, int $default): int
    {
        if (!isset($env[$name]) || $env[$name] === '') {
            return $default;
        }
        $value = \filter_var($env[$name], \FILTER_VALIDATE_INT);
        if ($value === false) {
            throw new \InvalidArgumentException("$name must be an integer, got \"{$env[$name]}\"");
        }

        return $value;
    }

    /** @param array<string, string> $env */
    private static function number(array $env, string $name, float $default): float
    {
        if (!isset($env[$name]) || $env[$name] === '') {
            return $default;
        }
        $value = \filter_var($env[$name], \FILTER_VALIDATE_FLOAT);
        if ($value === false) {
            throw new \InvalidArgumentException("$name must be a number, got \"{$env[$name]}\"");
        }

        return $value;
    }
}
