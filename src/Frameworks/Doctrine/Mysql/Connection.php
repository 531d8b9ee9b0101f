<?php

declare(strict_types=1);

namespace Bobbin\Frameworks\Doctrine\Mysql;

use Bobbin\Frameworks\Database\MysqlSession;
use Bobbin\Frameworks\Doctrine\SqlConnection;
use Bobbin\Mysql\Exception\MysqlException;
use Doctrine\DBAL\Driver\Exception\NoIdentityValue;

/**
 * A DBAL driver connection over one pooled MySQL connection: SqlConnection with MySQL's
 * positional placeholders, START TRANSACTION and the insert id of the session's last INSERT.
 *
 * @extends SqlConnection<MysqlSession>
 */
final class Connection extends SqlConnection
{
    public function __construct(MysqlSession $session)
    {
        parent::__construct($session);
    }

    public function prepare(string $sql): Statement
    {
        return new Statement($this->session, $sql);
    }

    public function lastInsertId(): int|string
    {
        return $this->session->lastInsertId() !== 0 ? $this->session->lastInsertId() : throw NoIdentityValue::new();
    }

    protected function beginStatement(): string
    {
        return 'START TRANSACTION';
    }

    protected function driverException(\Throwable $error): ?DriverException
    {
        return $error instanceof MysqlException ? DriverException::from($error) : null;
    }
}
