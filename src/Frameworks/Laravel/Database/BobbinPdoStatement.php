<?php

declare(strict_types=1);

namespace Bobbin\Frameworks\Laravel\Database;

use Bobbin\Frameworks\Database\SqlSession;

/**
 * A prepared statement as Laravel's connection uses one: bindValue(), execute(), then fetch,
 * fetchAll or rowCount. The rows are all read when execute() returns; objects (Laravel's
 * default FETCH_OBJ), arrays and single columns are made from them.
 */
final class BobbinPdoStatement extends \PDOStatement
{
    /** @var array<int, mixed> by $number */
    private array $values = [];
    /** @var list<array<string, mixed>> */
    private array $rows = [];
    private int $position = 0;
    private int $affectedRows = 0;
    private int $fetchMode = \PDO::FETCH_OBJ;

    /**
     * @param array<int|string, int> $map placeholder => $number
     */
    public function __construct(
        private readonly SqlSession $session,
        private readonly PdoDialect $dialect,
        private readonly string $sql,
        private readonly array $map,
    ) {
    }

    public function bindValue(int|string $param, mixed $value, int $type = \PDO::PARAM_STR): bool
    {
        $key = \is_string($param) ? \ltrim($param, ':') : $param;
        $number = $this->map[$key] ?? throw new \InvalidArgumentException(\sprintf('The statement has no parameter %s', $param));
        $this->values[$number] = $value === null ? null : $this->dialect->bindable($value, $type);

        return true;
    }

    /** @param array<int|string, mixed>|null $params */
    public function execute(?array $params = null): bool
    {
        if ($params !== null) {
            foreach ($params as $key => $value) {
                $this->bindValue(\is_int($key) ? $key + 1 : $key, $value);
            }
        }
        $values = [];
        for ($number = 1, $count = \count(\array_unique($this->map)); $number <= $count; $number++) {
            $values[] = $this->values[$number] ?? null;
        }
        try {
            $result = $this->session->query($this->sql, $values);
        } catch (\Throwable $error) {
            throw $this->dialect->queryFailed($error) ?? $error;
        }
        $this->rows = $result->rows;
        $this->position = 0;
        $this->affectedRows = $result->affectedRows;

        return true;
    }

    public function setFetchMode(int $mode, mixed ...$args): bool
    {
        $this->fetchMode = $mode;

        return true;
    }

    public function fetch(int $mode = \PDO::FETCH_DEFAULT, int $cursorOrientation = \PDO::FETCH_ORI_NEXT, int $cursorOffset = 0): mixed
    {
        $row = $this->rows[$this->position] ?? null;
        if ($row === null) {
            return false;
        }
        $this->position++;

        return $this->shape($row, $mode === \PDO::FETCH_DEFAULT ? $this->fetchMode : $mode);
    }

    public function fetchAll(int $mode = \PDO::FETCH_DEFAULT, mixed ...$args): array
    {
        $mode = $mode === \PDO::FETCH_DEFAULT ? $this->fetchMode : $mode;
        $rows = [];
        foreach (\array_slice($this->rows, $this->position) as $row) {
            $rows[] = $this->shape($row, $mode);
        }
        $this->position = \count($this->rows);

        return $rows;
    }

    public function fetchColumn(int $column = 0): mixed
    {
        $row = $this->rows[$this->position++] ?? null;

        return $row === null ? false : (\array_values($row)[$column] ?? null);
    }

    public function rowCount(): int
    {
        return $this->affectedRows;
    }

    public function columnCount(): int
    {
        return $this->rows === [] ? 0 : \count($this->rows[0]);
    }

    public function closeCursor(): bool
    {
        $this->rows = [];
        $this->position = 0;

        return true;
    }

    public function nextRowset(): bool
    {
        return false;
    }

    /** @param array<string, mixed> $row */
    private function shape(array $row, int $mode): mixed
    {
        return match ($mode) {
            \PDO::FETCH_ASSOC => $row,
            \PDO::FETCH_NUM => \array_values($row),
            \PDO::FETCH_BOTH => $row + \array_values($row),
            \PDO::FETCH_COLUMN => \reset($row),
            default => (object) $row,
        };
    }
}
