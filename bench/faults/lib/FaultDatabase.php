<?php

declare(strict_types=1);

namespace Bobbin\Bench\Faults;

/**
 * The database of a fault run, as the runner needs it: its schema, the rows a run wrote, and the
 * faults done to it — killing the server's sessions, freezing the server's processes (SIGSTOP),
 * restarting it. One implementation per database: PostgresFaultDatabase, MysqlFaultDatabase.
 * A checker's connection of its own, through the reference client (ext-pgsql, mysqli): it shares
 * no code with the server under test.
 */
interface FaultDatabase
{
    /** The name the report uses: "PostgreSQL", "MariaDB". */
    public function name(): string;

    /** The URL the aircraft server gets (tagged so that its sessions can be told apart). */
    public function serverUrl(string $tag): string;

    /** Creates the aircraft table if it is missing. */
    public function prepareSchema(string $schemaFile): void;

    /** Ends every session of the server under test (tagged $tag); returns how many. */
    public function killServerSessions(string $tag): int;

    /** The pids of the database server's processes, for SIGSTOP/SIGCONT. @return list<int> */
    public function serverPids(): array;

    /** Stops and starts the database server; returns once it accepts connections again. */
    public function restart(): void;

    /** @return array<string, string> number => title of every row whose number starts with $prefix */
    public function titles(string $prefix): array;

    public function deleteRows(string $prefix): void;
}
