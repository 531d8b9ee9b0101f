<?php

declare(strict_types=1);

namespace Bobbin\Frameworks\Laravel\Database;

use Bobbin\Frameworks\Database\Placeholders;
use Bobbin\Frameworks\Database\Session;
use Bobbin\Frameworks\Database\SqlSession;
use Bobbin\Postgres\Exception\PostgresException;

/** pdo_pgsql's ways: `?` and `:name` as $1…, BEGIN, LASTVAL()/CURRVAL(), bytea for LOBs. */
final class PostgresPdoDialect implements PdoDialect
{
    public function driverName(): string
    {
        return 'pgsql';
    }

    public function prepare(string $sql): array
    {
        return Placeholders::convert($sql);
    }

    public function beginStatement(): string
    {
        return 'BEGIN';
    }

    public function lastInsertId(SqlSession $session, ?string $name): string
    {
        $result = $name === null
            ? $session->query('SELECT LASTVAL() AS id')
            : $session->query('SELECT CURRVAL($1) AS id', [$name]);

        return (string) $result->rows[0]['id'];
    }

    public function bindable(mixed $value, int $type): mixed
    {
        return match (true) {
            $type === \PDO::PARAM_LOB => Session::binary($value),
            $type === \PDO::PARAM_BOOL => (bool) $value,
            $type === \PDO::PARAM_INT && !\is_int($value) => (int) $value,
            default => $value,
        };
    }

    public function queryFailed(\Throwable $error): ?\PDOException
    {
        return $error instanceof PostgresException ? QueryFailedException::from($error) : null;
    }
}
