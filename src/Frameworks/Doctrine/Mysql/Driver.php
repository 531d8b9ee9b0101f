<?php

declare(strict_types=1);

namespace Bobbin\Frameworks\Doctrine\Mysql;

use Bobbin\Frameworks\Database\MysqlPools;
use Bobbin\Frameworks\Database\MysqlSession;
use Bobbin\Mysql\ConnectionPool;
use Bobbin\Mysql\Exception\MysqlException;
use Doctrine\DBAL\Driver\AbstractMySQLDriver;

/**
 * A Doctrine DBAL 4 driver on Bobbin's MySQL/MariaDB client: `'driverClass' =>
 * Bobbin\Frameworks\Doctrine\Mysql\Driver::class`. DBAL's MySQL or MariaDB platform (chosen by
 * the server's version), schema manager and exception conversion by error number are its own.
 *
 * The pool: `driverOptions: {pool: ConnectionPool}` to share the application's, else one per
 * connection settings per process (MysqlPools) from url, or host/port/dbname/user/password/
 * unix_socket, with `driverOptions: {pool_max: N}` (default 16). Each DBAL connection keeps one
 * pooled connection, as mysqli does. Parameters are positional (`?`), as with DBAL's mysqli
 * driver; DBAL turns named ones into positional ones before they get here.
 */
final class Driver extends AbstractMySQLDriver
{
    /** @param array<string, mixed> $params */
    public function connect(#[\SensitiveParameter] array $params): Connection
    {
        $options = \is_array($params['driverOptions'] ?? null) ? $params['driverOptions'] : [];
        $pool = $options['pool'] ?? null;
        if (!$pool instanceof ConnectionPool) {
            $pool = MysqlPools::forParameters($params, (int) ($options['pool_max'] ?? 16));
        }
        $session = new MysqlSession($pool);
        try {
            $session->serverVersion(); // takes a pooled connection now: a failure to connect surfaces here, as DBAL expects of connect()
        } catch (MysqlException $error) {
            throw DriverException::from($error);
        }

        return new Connection($session);
    }
}
