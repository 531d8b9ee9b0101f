<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Postgres;

use Bobbin\Tests\Support\Tls\TestCertificates;

/**
 * A second private PostgreSQL cluster (scripts/pg with BOBBIN_PG_HOME under var/pg-tls-tests)
 * with TLS on, whose certificate a test chooses: present() points ssl_cert_file/ssl_key_file at
 * one of TestCertificates' and reloads the configuration, so the shared cluster is never
 * touched. Stopped by the test class.
 */
final class TlsPostgresServer
{
    public static function home(): string
    {
        return \dirname(__DIR__, 3) . '/var/pg-tls-tests';
    }

    public static function start(): void
    {
        self::script('start');
        $directory = self::home() . '/tls';
        @\mkdir($directory, 0700);
        foreach ([TestCertificates::LOCALHOST, TestCertificates::WRONG_HOST, TestCertificates::SELF_SIGNED] as $name) {
            // The server reads its key only when the server's user owns it, mode 0600.
            \copy(TestCertificates::certificate($name), "$directory/$name.pem");
            \copy(TestCertificates::key($name), "$directory/$name-key.pem");
            \chmod("$directory/$name-key.pem", 0600);
        }
        if (\posix_getuid() === 0) {
            \exec('chown -R postgres: ' . \escapeshellarg($directory));
        }
        \chmod($directory, 0700);
    }

    public static function stop(): void
    {
        self::script('stop');
    }

    /** A libpq key/value string over TCP on 127.0.0.1 (password authentication), without sslmode. */
    public static function tcpConnectionString(): string
    {
        return \str_replace(' sslmode=disable', '', self::script('url --tcp')); // scripts/pg's clusters have no TLS; this one does
    }

    public static function present(string $certificate): void
    {
        $directory = self::home() . '/tls';
        self::sql("ALTER SYSTEM SET ssl_cert_file = '$directory/$certificate.pem'");
        self::sql("ALTER SYSTEM SET ssl_key_file = '$directory/$certificate-key.pem'");
        self::sql('ALTER SYSTEM SET ssl = on');
        self::sql('SELECT pg_reload_conf()');
        // The postmaster reloads on its SIGHUP; sessions opened after that see the new file.
        $deadline = \microtime(true) + 10;
        while (self::sql('SHOW ssl_cert_file') !== "$directory/$certificate.pem" || self::sql('SHOW ssl') !== 'on') {
            if (\microtime(true) > $deadline) {
                throw new \RuntimeException('PostgreSQL did not take the new certificate');
            }
            \usleep(20_000);
        }
    }

    private static function sql(string $sql): string
    {
        return self::script('psql -Atqc ' . \escapeshellarg($sql));
    }

    private static function script(string $command): string
    {
        // Every inherited descriptor above stderr closed: a server started from here must not
        // keep PHPUnit's pipes open.
        $line = 'for fd in $(ls /proc/$$/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done; '
            . 'BOBBIN_PG_HOME=' . \escapeshellarg(self::home()) . ' ' . \dirname(__DIR__, 3) . '/scripts/pg ' . $command . ' 2>&1';
        \exec('/bin/bash -c ' . \escapeshellarg($line), $output, $code);
        if ($code !== 0) {
            throw new \RuntimeException('scripts/pg ' . $command . ' failed: ' . \implode("\n", $output));
        }

        return \trim(\implode("\n", \array_filter($output, static fn (string $l): bool => !\str_starts_with($l, '[bobbin]'))));
    }
}
