<?php

declare(strict_types=1);

namespace Bobbin\Bench\Faults;

/**
 * The embedded MariaDB (scripts/mysql) of a fault run, checked through mysqli. The server under
 * test connects as a user of its own (bobbin_fault), so that its sessions can be told apart
 * from the checker's and killed without touching anyone else's.
 */
final class MysqlFaultDatabase implements FaultDatabase
{
    private const SERVER_USER = 'bobbin_fault';
    private const SERVER_PASSWORD = 'bobbin_fault';

    private \mysqli $checker;

    public function __construct(private readonly string $root)
    {
        $this->checker = $this->connect();
        // The server's own account: its sessions are the ones killed (killServerSessions()).
        $this->checker->query(\sprintf("CREATE USER IF NOT EXISTS '%s'@'%%' IDENTIFIED BY '%s'", self::SERVER_USER, self::SERVER_PASSWORD));
        $this->checker->query(\sprintf("CREATE USER IF NOT EXISTS '%s'@'localhost' IDENTIFIED BY '%s'", self::SERVER_USER, self::SERVER_PASSWORD));
        $this->checker->query(\sprintf("GRANT ALL ON bobbin.* TO '%s'@'%%'", self::SERVER_USER));
        $this->checker->query(\sprintf("GRANT ALL ON bobbin.* TO '%s'@'localhost'", self::SERVER_USER));
    }

    public static function embedded(string $root): self
    {
        \exec(\escapeshellarg("$root/scripts/mysql") . ' start >/dev/null 2>&1', $lines, $code);
        if ($code !== 0) {
            throw new \RuntimeException('scripts/mysql could not start the embedded MariaDB');
        }

        return new self($root);
    }

    public function name(): string
    {
        return 'MariaDB';
    }

    public function serverUrl(string $tag): string
    {
        return \sprintf('mysql://%s:%s@localhost/bobbin?unix_socket=%s', self::SERVER_USER, self::SERVER_PASSWORD, \rawurlencode($this->socket()));
    }

    public function prepareSchema(string $schemaFile): void
    {
        $this->checker->multi_query((string) \file_get_contents($schemaFile));
        while ($this->checker->more_results() && $this->checker->next_result()) {
            // each statement of the schema file
        }
    }

    public function killServerSessions(string $tag): int
    {
        $killed = 0;
        $sessions = $this->reconnected()->query(\sprintf("SELECT id FROM information_schema.processlist WHERE user = '%s'", self::SERVER_USER));
        foreach ($sessions === false ? [] : $sessions->fetch_all() as [$id]) {
            try {
                $this->checker->query('KILL CONNECTION ' . (int) $id);
                $killed++;
            } catch (\mysqli_sql_exception) {
                // Gone meanwhile.
            }
        }

        return $killed;
    }

    public function serverPids(): array
    {
        $pid = (int) \trim((string) @\file_get_contents("$this->root/var/mysql/mariadb.pid"));

        return $pid > 0 ? [$pid] : [];
    }

    public function restart(): void
    {
        \exec(\escapeshellarg("$this->root/scripts/mysql") . ' restart >/dev/null 2>&1');
        $this->checker = $this->connect();
    }

    public function titles(string $prefix): array
    {
        $statement = $this->reconnected()->prepare('SELECT number, title FROM aircraft WHERE number LIKE ?');
        $like = "$prefix%";
        $statement->bind_param('s', $like);
        $statement->execute();
        $titles = [];
        foreach ($statement->get_result()->fetch_all() as [$number, $title]) {
            $titles[(string) $number] = (string) $title;
        }

        return $titles;
    }

    public function deleteRows(string $prefix): void
    {
        $statement = $this->reconnected()->prepare('DELETE FROM aircraft WHERE number LIKE ?');
        $like = "$prefix%";
        $statement->bind_param('s', $like);
        $statement->execute();
    }

    private function socket(): string
    {
        \exec(\escapeshellarg("$this->root/scripts/mysql") . ' url', $lines);
        \parse_str((string) \parse_url(\trim(\implode('', $lines)), \PHP_URL_QUERY), $query);

        return (string) ($query['unix_socket'] ?? '');
    }

    private function reconnected(): \mysqli
    {
        try {
            $this->checker->query('SELECT 1');
        } catch (\mysqli_sql_exception) {
            $this->checker = $this->connect();
        }

        return $this->checker;
    }

    private function connect(): \mysqli
    {
        \mysqli_report(\MYSQLI_REPORT_ERROR | \MYSQLI_REPORT_STRICT);

        return new \mysqli('localhost', 'bobbin', 'bobbin', 'bobbin', 0, $this->socket());
    }
}
