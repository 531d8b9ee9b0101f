<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Legacy\Apps;

use Bobbin\Tests\Support\Differential\Mysqli;

/**
 * The test MariaDB (BOBBIN_TEST_MYSQL_URL) as a classic application is told about it, and
 * databases of this test run's own, dropped after it.
 */
final class MysqlAccount
{
    /** @var list<string> */
    private array $databases = [];

    private function __construct(
        private readonly string $url,
        public readonly string $user,
        public readonly string $password,
        /** "host:port" or "localhost:/path/to/socket", as WordPress's DB_HOST and Adminer's server field take it */
        public readonly string $server,
    ) {
    }

    public static function fromUrl(string $url): self
    {
        $parts = \parse_url($url);
        if (!\is_array($parts)) {
            throw new \InvalidArgumentException('Not a MySQL URL');
        }
        \parse_str($parts['query'] ?? '', $query);
        $socket = \is_string($query['unix_socket'] ?? null) ? $query['unix_socket'] : '';
        $server = $socket !== '' ? 'localhost:' . $socket : ($parts['host'] ?? 'localhost') . ':' . ($parts['port'] ?? 3306);

        return new self($url, \urldecode($parts['user'] ?? ''), \urldecode($parts['pass'] ?? ''), $server);
    }

    /** A new, empty database; $setup runs in it (a table to browse). */
    public function createDatabase(string $prefix, string ...$setup): string
    {
        $name = $prefix . '_' . \bin2hex(\random_bytes(4));
        $mysqli = Mysqli::connect($this->url);
        $mysqli->query("CREATE DATABASE `$name` CHARACTER SET utf8mb4");
        $this->databases[] = $name;
        $mysqli->select_db($name);
        foreach ($setup as $sql) {
            $mysqli->query($sql);
        }
        $mysqli->close();

        return $name;
    }

    public function dropDatabases(): void
    {
        if ($this->databases === []) {
            return;
        }
        $mysqli = Mysqli::connect($this->url);
        foreach ($this->databases as $name) {
            $mysqli->query("DROP DATABASE IF EXISTS `$name`");
        }
        $mysqli->close();
        $this->databases = [];
    }
}
