<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Mysql;

/**
 * The checkout's private MariaDB (scripts/mysql), started on first use and left running for the
 * rest of the run; scripts/test stops it at the end.
 */
final class EmbeddedMysql
{
    private static ?string $url = null;
    private static ?string $tcpUrl = null;

    /** mysql:// URL over the unix socket (user bobbin, who may administer the server). */
    public static function url(): string
    {
        if (self::$url === null) {
            self::$url = \getenv('BOBBIN_TEST_MYSQL_URL') ?: self::script('start', 'url');
        }

        return self::$url;
    }

    /** mysql:// URL over TCP on 127.0.0.1, without TLS options. */
    public static function tcpUrl(): string
    {
        if (self::$tcpUrl === null) {
            self::url();
            self::$tcpUrl = self::script('url --tcp');
        }

        return self::$tcpUrl;
    }

    /** The CA certificate that signed the server's TLS certificate. */
    public static function tlsCa(): string
    {
        return self::script('tls-ca');
    }

    /** Runs SQL with the mariadb command-line client (outside the code under test), returning its output. */
    public static function client(string $sql): string
    {
        self::url();

        return self::script('client -N -B -e ' . \escapeshellarg($sql));
    }

    public static function stop(): void
    {
        self::script('stop');
    }

    public static function start(): void
    {
        self::script('start');
    }

    private static function script(string ...$commands): string
    {
        $output = '';
        foreach ($commands as $command) {
            // Every inherited descriptor above stderr closed: a server started from here must
            // not keep PHPUnit's pipes open.
            $line = 'for fd in $(ls /proc/$$/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done; '
                . \dirname(__DIR__, 3) . '/scripts/mysql ' . $command . ' 2>&1';
            $lines = [];
            \exec('/bin/bash -c ' . \escapeshellarg($line), $lines, $status);
            if ($status !== 0) {
                throw new \RuntimeException("scripts/mysql $command failed: " . \implode("\n", $lines));
            }
            $output = \implode("\n", \array_filter($lines, static fn (string $l): bool => !\str_starts_with($l, '[bobbin]')));
        }

        return \trim($output);
    }
}
