<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Mysql;

use Bobbin\Tests\Support\Tls\TestCertificates;

/**
 * A second private MariaDB (scripts/mysql with BOBBIN_MYSQL_HOME under var/mysql-tls-tests) whose
 * TLS certificate a test chooses: present() swaps in one of TestCertificates' and reloads it
 * (FLUSH SSL), so the shared server's certificate is never touched. Stopped by the test class.
 */
final class TlsMysqlServer
{
    public static function home(): string
    {
        return \dirname(__DIR__, 3) . '/var/mysql-tls-tests';
    }

    public static function start(): void
    {
        self::script('start');
    }

    public static function stop(): void
    {
        self::script('stop');
    }

    /** mysql:// over TCP on 127.0.0.1, without TLS options. */
    public static function tcpUrl(): string
    {
        return self::script('url --tcp');
    }

    public static function present(string $certificate): void
    {
        \copy(TestCertificates::certificate($certificate), self::home() . '/tls/server.pem');
        \copy(TestCertificates::key($certificate), self::home() . '/tls/server-key.pem');
        self::script('client -e ' . \escapeshellarg('FLUSH SSL'));
    }

    private static function script(string $command): string
    {
        // Every inherited descriptor above stderr closed: a server started from here must not
        // keep PHPUnit's pipes open.
        $line = 'for fd in $(ls /proc/$$/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done; '
            . 'BOBBIN_MYSQL_HOME=' . \escapeshellarg(self::home()) . ' ' . \dirname(__DIR__, 3) . '/scripts/mysql ' . $command . ' 2>&1';
        \exec('/bin/bash -c ' . \escapeshellarg($line), $output, $code);
        if ($code !== 0) {
            throw new \RuntimeException('scripts/mysql ' . $command . ' failed: ' . \implode("\n", $output));
        }

        return \trim(\implode("\n", \array_filter($output, static fn (string $l): bool => !\str_starts_with($l, '[bobbin]'))));
    }
}
