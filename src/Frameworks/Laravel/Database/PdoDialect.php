<?php

declare(strict_types=1);

namespace Bobbin\Frameworks\Laravel\Database;

use Bobbin\Frameworks\Database\SqlSession;

/**
 * The per-database part of the PDO object Laravel talks to (BobbinPdo, BobbinPdoStatement):
 * what PDO's driver for that database would do differently — its name, its placeholders, how
 * a transaction begins, how the last insert id is read, how bound values convert and how the
 * client's errors look as that driver's PDOException.
 */
interface PdoDialect
{
    /** PDO::ATTR_DRIVER_NAME ("pgsql"), which Laravel's connection reads. */
    public function driverName(): string;

    /**
     * The statement as the client takes it, and for each placeholder (1-based position for `?`,
     * the name without its colon for `:name`) the 1-based number of its value.
     *
     * @return array{string, array<int|string, int>}
     */
    public function prepare(string $sql): array;

    public function beginStatement(): string;

    /** PDO::lastInsertId($name): the id of the session's last insert (or of sequence $name). */
    public function lastInsertId(SqlSession $session, ?string $name): string;

    /** A bound value as the client takes it, by its PDO::PARAM_* type (never null). */
    public function bindable(mixed $value, int $type): mixed;

    /** The client's error as the PDO driver would throw it, or null for anything else. */
    public function queryFailed(\Throwable $error): ?\PDOException;
}
