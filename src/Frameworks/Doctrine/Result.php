<?php

declare(strict_types=1);

namespace Bobbin\Frameworks\Doctrine;

use Doctrine\DBAL\Driver\Result as DriverResult;

/**
 * A statement's rows, read completely by the time the statement returned (Bobbin's client
 * never leaves a result on the wire): fetching walks an array. Both clients' drivers use it. Values come typed as the
 * client converts them (int, float, bool, binary strings for bytea, text otherwise).
 */
final class Result implements DriverResult
{
    private int $position = 0;

    /** @param list<array<string, mixed>> $rows */
    public function __construct(private array $rows, private readonly int $affectedRows)
    {
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
        return $this->affectedRows;
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
