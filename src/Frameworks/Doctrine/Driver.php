<?php

declare(strict_types=1);

namespace Bobbin\Frameworks\Doctrine;

use Bobbin\Frameworks\Database\Pools;
use Bobbin\Frameworks\Database\Session;
use Bobbin\Postgres\ConnectionPool;
use Doctrine\DBAL\Driver\AbstractPostgreSQLDriver;

/**
 * A Doctrine DBAL 4 driver on Bobbin's PostgreSQL client: `'driverClass' =>
 * Bobbin\Frameworks\Doctrine\Driver::class` in the connection parameters (in Symfony:
 * doctrine.dbal.driver_class, or a url with the parameters below). DBAL's platform, schema
 * manager and exception conversion are its PostgreSQL ones.
 *
 * The pool: `driverOptions: {pool: ConnectionPool}` to share the application's, else one per
 * connection string per process (Pools) from url, or host/port/dbname/user/password, with
 * `driverOptions: {pool_max: N}` (default 16). Each DBAL connection keeps one pooled session,
 * as a PDO connection does. Under `bin/bobbin serve` a statement suspends only its request's
 * fiber and is cancelled on the server when the request is (RequestScope); under PHP-FPM and
 * in scripts it simply blocks.
 */
final class Driver extends AbstractPostgreSQLDriver
{
    /** @param array<string, mixed> $params */
    public function connect(#[\SensitiveParameter] array $params): Connection
    {
        $options = \is_array($params['driverOptions'] ?? null) ? $params['driverOptions'] : [];
        $pool = $options['pool'] ?? null;
        if (!$pool instanceof ConnectionPool) {
            $pool = Pools::forConnectionString(Pools::connectionString($params), (int) ($options['pool_max'] ?? 16));
        }

        return new Connection(new Session($pool));
    }
}
