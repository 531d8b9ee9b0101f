<?php

declare(strict_types=1);

namespace Bobbin\Bench;

/** Facts about the machine and the software versions, for the report. */
final class Machine
{
    private static ?int $cpuCount = null;

    /** Every CPU of the machine, not only those this (possibly pinned) process may use. */
    public static function cpuCount(): int
    {
        return self::$cpuCount ??= \max(1, (int) \trim((string) @\shell_exec('nproc --all 2>/dev/null')));
    }

    /** @return array<string, string> */
    public static function describe(): array
    {
        \preg_match('~^model name\s*:\s*(.+)$~m', (string) @\file_get_contents('/proc/cpuinfo'), $cpu);
        \preg_match('~^MemTotal:\s*(\d+) kB~m', (string) @\file_get_contents('/proc/meminfo'), $mem);

        return [
            'CPUs (nproc --all)' => (string) self::cpuCount(),
            'CPU model' => $cpu[1] ?? 'unknown',
            'memory' => isset($mem[1]) ? \sprintf('%.1f GiB', (int) $mem[1] / 1048576) : 'unknown',
            'kernel' => \php_uname('s') . ' ' . \php_uname('r'),
            'PHP (CLI)' => \PHP_VERSION,
            'PHP-FPM' => self::firstLine(['php-fpm8.2', '-v']),
            'nginx' => self::firstLine(['nginx', '-v']),
            'PostgreSQL' => self::firstLine(['/usr/lib/postgresql/15/bin/postgres', '--version']),
            'pgbench' => self::firstLine(['/usr/lib/postgresql/15/bin/pgbench', '--version']),
            'wrk' => self::firstLine(['wrk', '-v']),
            'curl' => self::firstLine(['curl', '--version']),
        ];
    }

    /** @param list<string> $command */
    private static function firstLine(array $command): string
    {
        $result = Shell::run($command, null, 10.0);
        $text = \trim($result->stdout !== '' ? $result->stdout : $result->stderr);

        return (string) \strtok($text, "\n");
    }
}
