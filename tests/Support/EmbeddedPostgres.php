<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support;

/**
 * The checkout's private PostgreSQL cluster (scripts/pg), started on first use and left running
 * for the rest of the run; scripts/test stops it at the end.
 */
final class EmbeddedPostgres
{
    private static ?string $unixUrl = null;
    private static ?string $tcpUrl = null;

    /** libpq key/value string over the unix socket (trust auth, superuser "bobbin"). */
    public static function connectionString(): string
    {
        if (self::$unixUrl === null) {
            self::$unixUrl = \getenv('BOBBIN_TEST_DATABASE_URL') ?: self::script('start', 'url');
        }

        return self::$unixUrl;
    }

    /** libpq key/value string over TCP on 127.0.0.1 with a password. */
    public static function tcpConnectionString(): string
    {
        if (self::$tcpUrl === null) {
            self::connectionString();
            self::$tcpUrl = self::script('url --tcp');
        }

        return self::$tcpUrl;
    }

    public static function port(): int
    {
        \preg_match('/port=(\d+)/', self::tcpConnectionString(), $m);

        return (int) $m[1];
    }

    public static function stop(): void
    {
        self::script('stop');
    }

    public static function start(): void
    {
        self::script('start');
    }

    public static function restart(): void
    {
        self::script('restart');
    }

    /** Runs one statement with psql (outside the code under test), returning its output. */
    public static function psql(string $sql): string
    {
        return self::script('psql -Atq -c ' . \escapeshellarg($sql));
    }

    private static function script(string ...$commands): string
    {
        $output = '';
        foreach ($commands as $command) {
            $line = \dirname(__DIR__, 2) . '/scripts/pg ' . $command . ' 2>&1';
            $lines = [];
            \exec($line, $lines, $status);
            if ($status !== 0) {
                throw new \RuntimeException("scripts/pg $command failed: " . \implode("\n", $lines));
            }
            $output = \implode("\n", \array_filter($lines, static fn (string $l): bool => !\str_starts_with($l, '[bobbin]')));
        }

        return \trim($output);
    }
}
