<?php

declare(strict_types=1);

namespace Bobbin\Frameworks\Doctrine;

use Bobbin\Postgres\Result as PostgresResult;
use Doctrine\DBAL\Driver\Result as DriverResult;

/**
 * A statement's rows, read completely by the time the statement returned (Bobbin's client
 * never leaves a result on the wire): fetching walks an array. Values come typed as the
 * client converts them (int, float, bool, binary strings for bytea, text otherwise).
 */
final class Result implements DriverResult
{
    /** @var list<array<string, mixed>> */
    private array $rows;
    private int $position = 0;

    public function __construct(private readonly PostgresResult $result)
    {
        $this->rows = $result->rows;
    }

    public function fetchNumeric(): array|false
    {
        $row = $this->fetchAssociative();

        return $row === false ? false : \array_values($row);
    }

    public function fetchAssociative(): array|false
    {
        return $this->rows[$this->position++] ?? false;
    }

    public function fetchOne(): mixed
    {
        $row = $this->fetchAssociative();

        return $row === false ? false : \reset($row);
    }

    public function fetchAllNumeric(): array
    {
        $rows = [];
        while (($row = $this->fetchNumeric()) !== false) {
            $rows[] = $row;
        }

        return $rows;
    }

    public function fetchAllAssociative(): array
    {
        $rows = \array_slice($this->rows, $this->position);
        $this->position = \count($this->rows);

        return $rows;
    }

    public function fetchFirstColumn(): array
    {
        $values = [];
        while (($value = $this->fetchOne()) !== false) {
            $values[] = $value;
        }

        return $values;
    }

    public function rowCount(): int
    {
        return $this->result->affectedRows;
    }

    public function columnCount(): int
    {
        return $this->rows === [] ? 0 : \count($this->rows[0]);
    }

    public function free(): void
    {
        $this->rows = [];
        $this->position = 0;
    }
}
