<?php

declare(strict_types=1);

namespace Bobbin\Frameworks\Doctrine;

use Bobbin\Frameworks\Database\Placeholders;
use Bobbin\Frameworks\Database\Session;
use Bobbin\Postgres\Exception\PostgresException;
use Doctrine\DBAL\Driver\Exception\NoIdentityValue;

/**
 * A DBAL driver connection over one pooled Bobbin session: SqlConnection with PostgreSQL's
 * placeholders ($1…), BEGIN and LASTVAL().
 *
 * @extends SqlConnection<Session>
 */
final class Connection extends SqlConnection
{
    public function __construct(Session $session)
    {
        parent::__construct($session);
    }

    public function prepare(string $sql): Statement
    {
        [$converted, $map] = Placeholders::convert($sql);

        return new Statement($this->session, $converted, $map);
    }

    public function lastInsertId(): int|string
    {
        try {
            return $this->session->query('SELECT LASTVAL()')->rows[0]['lastval'];
        } catch (PostgresException $error) {
            if ($error->sqlState() === '55000') {
                throw NoIdentityValue::new(DriverException::from($error)); // lastval is not yet defined in this session
            }
            throw DriverException::from($error);
        }
    }

    protected function beginStatement(): string
    {
        return 'BEGIN';
    }

    protected function driverException(\Throwable $error): ?DriverException
    {
        return $error instanceof PostgresException ? DriverException::from($error) : null;
    }
}
