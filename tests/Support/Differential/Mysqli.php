<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Differential;

/**
 * mysqli (mysqlnd), the reference client nobody here wrote, on the server behind a Bobbin URL:
 * native ints and floats over the text protocol too (MYSQLI_OPT_INT_AND_FLOAT_NATIVE), as
 * Bobbin's command() gives them. Its calls block the process.
 */
final class Mysqli
{
    public static function connect(string $url): \mysqli
    {
        $parts = \parse_url($url);
        \assert(\is_array($parts));
        \parse_str($parts['query'] ?? '', $query);
        \mysqli_report(\MYSQLI_REPORT_ERROR | \MYSQLI_REPORT_STRICT);
        $mysqli = \mysqli_init();
        \assert($mysqli instanceof \mysqli);
        $mysqli->options(\MYSQLI_OPT_INT_AND_FLOAT_NATIVE, 1);
        $mysqli->real_connect(
            $parts['host'] ?? 'localhost',
            \urldecode($parts['user'] ?? ''),
            \urldecode($parts['pass'] ?? ''),
            \ltrim($parts['path'] ?? '', '/'),
            $parts['port'] ?? 3306,
            \is_string($query['unix_socket'] ?? null) ? $query['unix_socket'] : null,
        );
        $mysqli->set_charset('utf8mb4');

        return $mysqli;
    }

    /**
     * Rows by id, over the text protocol or as a prepared statement.
     *
     * @param list<mixed> $params
     * @return array<int, array<string, mixed>>
     */
    public static function rowsById(\mysqli $mysqli, string $sql, bool $prepared, array $params = []): array
    {
        if ($prepared) {
            $statement = $mysqli->prepare($sql);
            \assert($statement instanceof \mysqli_stmt);
            $statement->execute($params === [] ? null : $params);
            $result = $statement->get_result();
            $statement->close();
        } else {
            $result = $mysqli->query($sql);
        }
        \assert($result instanceof \mysqli_result);
        $rows = [];
        foreach ($result->fetch_all(\MYSQLI_ASSOC) as $row) {
            $rows[(int) $row['id']] = $row;
        }

        return $rows;
    }

    /**
     * Runs a prepared statement with each parameter bound by its PHP type (i, d, s): mysqli's
     * execute_query() binds every value as a string, which writes a float with PHP's `precision`
     * (14 digits) and makes the int 0 the string "0" (2000 in a YEAR).
     *
     * @param list<mixed> $params
     */
    public static function executeTyped(\mysqli $mysqli, string $sql, array $params): void
    {
        $statement = $mysqli->prepare($sql);
        \assert($statement instanceof \mysqli_stmt);
        $types = \implode('', \array_map(static fn (mixed $v): string => match (true) {
            \is_int($v) => 'i',
            \is_float($v) => 'd',
            default => 's',
        }, $params));
        $statement->bind_param($types, ...$params);
        $statement->execute();
        $statement->close();
    }
}
