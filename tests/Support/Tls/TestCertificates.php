<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Tls;

/**
 * Certificates for the TLS verification tests, made once under var/tls-test with the openssl
 * command: a private CA (ca.pem), and three server certificates, each a NAME.pem with its
 * NAME-key.pem —
 *   localhost    signed by the CA, for localhost and 127.0.0.1: what a verified connect accepts
 *   wrong-host   signed by the same CA, for wrong.example only: refused for the wrong name
 *   self-signed  for localhost and 127.0.0.1, signed by itself: refused for its issuer
 */
final class TestCertificates
{
    public const LOCALHOST = 'localhost';
    public const WRONG_HOST = 'wrong-host';
    public const SELF_SIGNED = 'self-signed';

    public static function directory(): string
    {
        $directory = \dirname(__DIR__, 3) . '/var/tls-test';
        if (\is_file($directory . '/complete')) {
            return $directory;
        }
        $building = $directory . '.' . \getmypid();
        @\mkdir(\dirname($directory), 0755, true); // var/ itself stays open to the servers' users (postgres)
        @\mkdir($building, 0700);
        self::openssl($building, 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '3650', '-subj', '/CN=Bobbin TLS test CA', '-keyout', 'ca-key.pem', '-out', 'ca.pem');
        self::signed($building, self::LOCALHOST, 'localhost', 'DNS:localhost,IP:127.0.0.1');
        self::signed($building, self::WRONG_HOST, 'wrong.example', 'DNS:wrong.example');
        self::openssl($building, 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '3650', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', self::SELF_SIGNED . '-key.pem', '-out', self::SELF_SIGNED . '.pem');
        \touch($building . '/complete');
        if (!@\rename($building, $directory)) {
            \exec('rm -rf ' . \escapeshellarg($building)); // another process finished first
        }

        return $directory;
    }

    public static function ca(): string
    {
        return self::directory() . '/ca.pem';
    }

    public static function certificate(string $name): string
    {
        return self::directory() . '/' . $name . '.pem';
    }

    public static function key(string $name): string
    {
        return self::directory() . '/' . $name . '-key.pem';
    }

    private static function signed(string $directory, string $name, string $commonName, string $alternativeNames): void
    {
        self::openssl($directory, 'req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=' . $commonName, '-keyout', $name . '-key.pem', '-out', $name . '.csr');
        \file_put_contents($directory . '/' . $name . '.ext', 'subjectAltName=' . $alternativeNames . "\n");
        self::openssl($directory, 'x509', '-req', '-in', $name . '.csr', '-CA', 'ca.pem', '-CAkey', 'ca-key.pem', '-CAcreateserial', '-days', '3650', '-extfile', $name . '.ext', '-out', $name . '.pem');
    }

    private static function openssl(string $directory, string ...$arguments): void
    {
        $process = \proc_open(['openssl', ...$arguments], [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['pipe', 'w']], $pipes, $directory);
        if (!\is_resource($process)) {
            throw new \RuntimeException('Cannot run openssl');
        }
        $errors = (string) \stream_get_contents($pipes[2]);
        if (\proc_close($process) !== 0) {
            throw new \RuntimeException('openssl ' . \implode(' ', $arguments) . ' failed: ' . $errors);
        }
    }
}
