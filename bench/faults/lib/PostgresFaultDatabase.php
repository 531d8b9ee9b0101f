<?php

declare(strict_types=1);

namespace Bobbin\Bench\Faults;

/** The embedded PostgreSQL (scripts/pg) of a fault run, checked through ext-pgsql. */
final class PostgresFaultDatabase implements FaultDatabase
{
    /** @var \PgSql\Connection */
    private $checker;

    public function __construct(private readonly string $root, private readonly string $url)
    {
        $this->checker = self::connect($url);
    }

    public static function embedded(string $root): self
    {
        \exec(\escapeshellarg("$root/scripts/pg") . ' start >/dev/null 2>&1 && ' . \escapeshellarg("$root/scripts/pg") . ' url', $lines, $code);
        if ($code !== 0) {
            throw new \RuntimeException('scripts/pg could not start the embedded PostgreSQL');
        }

        return new self($root, \trim(\implode("\n", $lines)));
    }

    public function name(): string
    {
        return 'PostgreSQL';
    }

    public function serverUrl(string $tag): string
    {
        return \str_contains($this->url, '://')
            ? $this->url . (\str_contains($this->url, '?') ? '&' : '?') . "application_name=$tag"
            : "$this->url application_name=$tag";
    }

    public function prepareSchema(string $schemaFile): void
    {
        \pg_query($this->checker, 'SET client_min_messages = warning');
        \pg_query($this->checker, (string) \file_get_contents($schemaFile));
    }

    public function killServerSessions(string $tag): int
    {
        $result = @\pg_query_params(
            $this->checker,
            'SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1',
            [$tag],
        );

        return $result === false ? 0 : (int) \pg_fetch_result($result, 0, 0);
    }

    public function serverPids(): array
    {
        // The postmaster and every backend: a stopped postmaster alone leaves its backends running.
        $postmaster = (int) \strtok((string) @\file_get_contents("$this->root/var/pg/data/postmaster.pid"), "\n");
        if ($postmaster <= 0) {
            return [];
        }
        \exec('pgrep -P ' . $postmaster, $children);

        return [$postmaster, ...\array_map('intval', $children)];
    }

    public function restart(): void
    {
        \exec(\escapeshellarg("$this->root/scripts/pg") . ' restart >/dev/null 2>&1');
        $this->checker = self::connect($this->url);
    }

    public function titles(string $prefix): array
    {
        $rows = \pg_query_params($this->reconnected(), 'SELECT number, title FROM aircraft WHERE number LIKE $1', ["$prefix%"]);
        if ($rows === false) {
            throw new \RuntimeException('Cannot read the rows: ' . \pg_last_error($this->checker));
        }
        $titles = [];
        foreach (\pg_fetch_all($rows) as $row) {
            $titles[(string) $row['number']] = (string) $row['title'];
        }

        return $titles;
    }

    public function deleteRows(string $prefix): void
    {
        \pg_query_params($this->reconnected(), 'DELETE FROM aircraft WHERE number LIKE $1', ["$prefix%"]);
    }

    /** The checker's connection, opened again if a fault (a restart) broke it. */
    private function reconnected(): \PgSql\Connection
    {
        if (\pg_connection_status($this->checker) !== \PGSQL_CONNECTION_OK || @\pg_query($this->checker, 'SELECT 1') === false) {
            $this->checker = self::connect($this->url);
        }

        return $this->checker;
    }

    private static function connect(string $url): \PgSql\Connection
    {
        $connection = @\pg_connect($url, \PGSQL_CONNECT_FORCE_NEW);
        if ($connection === false) {
            throw new \RuntimeException("Cannot connect to $url");
        }

        return $connection;
    }
}
