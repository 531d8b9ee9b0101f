<?php

declare(strict_types=1);

namespace Bobbin\Bench;

/**
 * The embedded PostgreSQL (scripts/pg): started if needed, schema applied, pinned to the
 * database CPU for the measurements. A cluster that was already running (tests of other work
 * may share it) is left running, with its CPU affinity given back, when the bench ends.
 */
final class Database
{
    /** Rows kept in the aircraft table across CRUD runs (see resetCrudTable()). */
    public const SEED_ROWS = 10_000;

    /** Settings recorded in the report; the tuning itself lives in scripts/pg (init_cluster). */
    private const SETTINGS = ['server_version', 'max_connections', 'shared_buffers', 'fsync', 'synchronous_commit',
        'full_page_writes', 'wal_level', 'work_mem', 'max_wal_size', 'checkpoint_timeout'];

    private bool $startedHere = false;
    private string $connectionString = '';
    private ?string $tcpConnectionString = null;

    public function __construct(private readonly string $root)
    {
    }

    public function start(): void
    {
        $this->startedHere = Shell::run([$this->root . '/scripts/pg', 'status'])->exitCode !== 0;
        $result = Shell::run([$this->root . '/scripts/pg', 'start'], null, 120.0);
        if ($result->exitCode !== 0) {
            throw new \RuntimeException("scripts/pg start failed:\n" . $result->stderr);
        }
        $this->connectionString = \trim(Shell::run([$this->root . '/scripts/pg', 'url'])->stdout);
        $schema = Shell::run([$this->root . '/scripts/pg', 'psql', '-q', '-v', 'ON_ERROR_STOP=1', '-f', $this->root . '/apps/aircraft/schema.sql']);
        if ($schema->exitCode !== 0) {
            throw new \RuntimeException("applying apps/aircraft/schema.sql failed:\n" . $schema->stderr);
        }
    }

    /** libpq key/value string over the unix socket; $applicationName tags the connections. */
    public function url(string $applicationName = 'bobbin-bench'): string
    {
        return $this->connectionString . ' application_name=' . $applicationName;
    }

    /**
     * The same database over TCP loopback (127.0.0.1), as a database on another host is reached:
     * what users of the aircraft API see, where the unix socket is a benchmark's luxury.
     */
    public function tcpUrl(string $applicationName = 'bobbin-bench'): string
    {
        $this->tcpConnectionString ??= \trim(Shell::run([$this->root . '/scripts/pg', 'url', '--tcp'])->stdout);

        return $this->tcpConnectionString . ' application_name=' . $applicationName;
    }

    /** @return array<string, string> libpq parameters: host, port, dbname, user */
    public function parameters(): array
    {
        $params = [];
        foreach (\preg_split('~\s+~', $this->connectionString) ?: [] as $pair) {
            [$key, $value] = \array_pad(\explode('=', $pair, 2), 2, '');
            $params[$key] = $value;
        }

        return $params;
    }

    /** Pins the postmaster and every backend; new backends inherit the postmaster's mask. */
    public function pin(string $cpus): void
    {
        $postmaster = $this->postmasterPid();
        if ($postmaster === 0) {
            return;
        }
        foreach (ProcessTree::expand([$postmaster]) as $pid) {
            Shell::run(['taskset', '-a', '-p', '-c', $cpus, (string) $pid]);
        }
    }

    public function stop(): void
    {
        if ($this->startedHere) {
            Shell::run([$this->root . '/scripts/pg', 'stop'], null, 120.0);
        } elseif ($this->connectionString !== '') {
            $this->pin('0-' . (Machine::cpuCount() - 1));
        }
    }

    /** @return array<string, string> */
    public function settings(): array
    {
        $settings = [];
        foreach (self::SETTINGS as $name) {
            $settings[$name] = (string) $this->value('SHOW ' . $name);
        }

        return $settings;
    }

    /**
     * Puts the aircraft table back to the same state before every CRUD run: rows the load
     * generators left behind (cycles cut off when a run ended) are deleted, and the table and its
     * indexes are rewritten. Without it each run inherited the dead rows and index bloat of every
     * run before it (157 MB for 17k live rows after one full bench run, autovacuum sharing the
     * database core), so a variant's figure depended on its place in the order.
     *
     * SEED_ROWS rows the cycles never touch stay in the table, so it is never analyzed empty, as
     * a production table is not. Analyzed empty, the planner costs a sequential scan below the
     * primary-key index for `WHERE id = $1`; prepared statements keep that plan while the run
     * piles up dead rows, until autovacuum happens to analyze again. Measured on 25 Nov: one
     * server across resets went 3,700 CRUD/s with 40–50k sequential scans per run, against
     * 5,300 CRUD/s and none with the seed rows, and full runs swung between 0.49x and 0.95x of
     * pgbench depending on autovacuum's timing.
     */
    public function resetCrudTable(): void
    {
        $this->execute("DELETE FROM aircraft WHERE number LIKE 'B-%' OR number LIKE 'PGB-%'");
        $this->execute(\sprintf(
            "INSERT INTO aircraft (number, title, serial_number, assembly_date, added_at)
             SELECT 'SEED-' || g, 'Seed aircraft', 'S-' || g, date '2000-01-01' + g %% 7000, date '2024-01-31'
             FROM generate_series(1, %d) g ON CONFLICT (number) DO NOTHING",
            self::SEED_ROWS,
        ));
        $this->execute('VACUUM (FULL, ANALYZE) aircraft');
    }

    /** Connections currently open by clients that used this application_name. */
    public function connectionsOf(string $applicationName): int
    {
        return (int) $this->value('SELECT count(*) FROM pg_stat_activity WHERE application_name = $1', [$applicationName]);
    }

    private function execute(string $sql): void
    {
        $connection = \pg_connect($this->url('bobbin-bench-probe'), \PGSQL_CONNECT_FORCE_NEW);
        if ($connection === false) {
            throw new \RuntimeException('Cannot connect to the embedded PostgreSQL');
        }
        try {
            if (@\pg_query($connection, $sql) === false) {
                throw new \RuntimeException("$sql failed: " . \pg_last_error($connection));
            }
        } finally {
            \pg_close($connection);
        }
    }

    /** @param list<string|int> $params */
    private function value(string $sql, array $params = []): ?string
    {
        $connection = \pg_connect($this->url('bobbin-bench-probe'), \PGSQL_CONNECT_FORCE_NEW);
        if ($connection === false) {
            throw new \RuntimeException('Cannot connect to the embedded PostgreSQL');
        }
        try {
            $result = \pg_query_params($connection, $sql, $params);
            $value = $result === false ? null : \pg_fetch_result($result, 0, 0);

            return $value === false || $value === null ? null : (string) $value;
        } finally {
            \pg_close($connection);
        }
    }

    /** Waits until the cluster accepts connections again (after someone else restarted it). */
    public function awaitUp(float $timeout): bool
    {
        $deadline = \microtime(true) + $timeout;
        do {
            if ($this->postmasterPid() > 0 && Shell::run([$this->root . '/scripts/pg', 'status'])->exitCode === 0
                && @\pg_connect($this->url('bobbin-bench-probe'), \PGSQL_CONNECT_FORCE_NEW) !== false) {
                return true;
            }
            \usleep(250_000);
        } while (\microtime(true) < $deadline);

        return false;
    }

    /** 0 while the cluster is down (or restarting). */
    public function postmasterPid(): int
    {
        return \max(0, (int) \strtok((string) @\file_get_contents($this->root . '/var/pg/data/postmaster.pid'), "\n"));
    }
}
