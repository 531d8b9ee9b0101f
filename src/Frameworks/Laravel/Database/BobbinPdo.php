<?php

declare(strict_types=1);

namespace Bobbin\Frameworks\Laravel\Database;

use Bobbin\Frameworks\Database\SqlSession;

/**
 * The PDO object Laravel's connection talks to, over a pooled Bobbin session: Laravel's query
 * builder, Eloquent, transactions and its error handling run unchanged, and every statement
 * waits without blocking the worker (and takes the request's cancellation). What the database's
 * PDO driver would do differently is the PdoDialect (PostgresPdoDialect by default).
 *
 * Only what Laravel's connection calls is implemented (prepare, exec, transactions,
 * lastInsertId, quote, the server version); PDO's own constructor is never run, so any other
 * PDO method fails with "PDO object is not initialized".
 */
final class BobbinPdo extends \PDO
{
    /** No parent constructor: there is no native PDO connection behind this one. */
    public function __construct(
        private readonly SqlSession $session,
        private readonly PdoDialect $dialect = new PostgresPdoDialect(),
    ) {
    }

    /** @param array<mixed> $options */
    public function prepare(string $query, array $options = []): BobbinPdoStatement
    {
        [$sql, $map] = $this->dialect->prepare($query);

        return new BobbinPdoStatement($this->session, $this->dialect, $sql, $map);
    }

    public function exec(string $statement): int
    {
        try {
            return $this->session->command($statement)->affectedRows;
        } catch (\Throwable $error) {
            throw $this->dialect->queryFailed($error) ?? $error;
        }
    }

    public function beginTransaction(): bool
    {
        $this->exec($this->dialect->beginStatement());

        return true;
    }

    public function commit(): bool
    {
        $this->exec('COMMIT');

        return true;
    }

    public function rollBack(): bool
    {
        $this->exec('ROLLBACK');

        return true;
    }

    public function inTransaction(): bool
    {
        return $this->session->inTransaction();
    }

    public function lastInsertId(?string $name = null): string
    {
        try {
            return $this->dialect->lastInsertId($this->session, $name);
        } catch (\Throwable $error) {
            throw $this->dialect->queryFailed($error) ?? $error;
        }
    }

    public function quote(string $string, int $type = \PDO::PARAM_STR): string
    {
        return $this->session->quote($string);
    }

    public function getAttribute(int $attribute): mixed
    {
        return match ($attribute) {
            \PDO::ATTR_DRIVER_NAME => $this->dialect->driverName(),
            \PDO::ATTR_SERVER_VERSION => $this->session->serverVersion(),
            \PDO::ATTR_ERRMODE => \PDO::ERRMODE_EXCEPTION,
            default => null,
        };
    }

    public function setAttribute(int $attribute, mixed $value): bool
    {
        return true;
    }

    /** Gives the session's connection back to the pool between requests (unless in a transaction). */
    public function releaseConnection(): void
    {
        $this->session->release();
    }
}
