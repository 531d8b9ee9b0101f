<?php

declare(strict_types=1);

namespace Bobbin\Sql;

use Bobbin\Async\Cancellation;

/** The convenience forms of Executor, built on query(): the same for every database. */
trait ExecutesQueries
{
    /**
     * @param array<int, mixed> $params
     * @return list<array<string, mixed>>
     */
    public function queryAll(string $sql, array $params = [], ?Cancellation $cancellation = null): array
    {
        return $this->query($sql, $params, $cancellation)->rows;
    }

    /**
     * @param array<int, mixed> $params
     * @return array<string, mixed>|null
     */
    public function queryOne(string $sql, array $params = [], ?Cancellation $cancellation = null): ?array
    {
        return $this->query($sql, $params, $cancellation)->rows[0] ?? null;
    }

    /** @param array<int, mixed> $params */
    public function queryValue(string $sql, array $params = [], ?Cancellation $cancellation = null): mixed
    {
        $row = $this->query($sql, $params, $cancellation)->rows[0] ?? null;

        return $row === null ? null : \reset($row);
    }

    /** @param array<int, mixed> $params */
    public function execute(string $sql, array $params = [], ?Cancellation $cancellation = null): int
    {
        return $this->query($sql, $params, $cancellation)->affectedRows;
    }
}
