<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Postgres;

use Bobbin\Postgres\Connection;
use Bobbin\Postgres\Exception\ConnectException;
use Bobbin\Tests\Support\Postgres\TlsPostgresServer;
use Bobbin\Tests\Support\Tls\TestCertificates;
use PHPUnit\Framework\Attributes\TestWith;
use PHPUnit\Framework\TestCase;

/**
 * libpq's own default (sslmode=prefer) encrypts without checking who answers; Bobbin's default
 * verifies the certificate and the host name (verify-full), and only tls_insecure=1 lets the
 * modes that do not check through (docs/POSTGRES.md, "TLS"; docs/CLIENTS.md, "TLS").
 */
final class TlsVerificationTest extends TestCase
{
    public static function setUpBeforeClass(): void
    {
        TestCertificates::directory();
        TlsPostgresServer::start();
    }

    public static function tearDownAfterClass(): void
    {
        TlsPostgresServer::stop();
    }

    #[TestWith([''], 'the default')]
    #[TestWith([' sslmode=verify-full'], 'verify-full')]
    public function testACertificateSignedByTheGivenCaForTheHostIsAcceptedAndUsed(string $mode): void
    {
        TlsPostgresServer::present(TestCertificates::LOCALHOST);

        $connection = Connection::connect(TlsPostgresServer::tcpConnectionString() . ' sslrootcert=' . TestCertificates::ca() . $mode);

        self::assertTrue($connection->queryValue('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()'));
        $connection->close();
    }

    #[TestWith([TestCertificates::WRONG_HOST, 'does not match host name'], 'a certificate for another host')]
    #[TestWith([TestCertificates::SELF_SIGNED, 'certificate verify failed'], 'a self-signed certificate')]
    public function testByDefaultACertificateThatFailsTheCheckIsRefusedWithAMessageNamingTheOptionNeverAClearTextFallback(string $certificate, string $reason): void
    {
        TlsPostgresServer::present($certificate);

        try {
            Connection::connect(TlsPostgresServer::tcpConnectionString() . ' sslrootcert=' . TestCertificates::ca());
            self::fail('an unverifiable certificate was accepted (or the connection went on in clear text)');
        } catch (ConnectException $e) {
            self::assertStringContainsString($reason, $e->getMessage());
            self::assertStringContainsString('tls_insecure=1', $e->getMessage());
        }
    }

    #[TestWith(['require'])]
    #[TestWith(['prefer'])]
    #[TestWith(['verify-ca'], 'verify-ca: the CA is checked, the host name is not')]
    public function testAModeThatDoesNotCheckTheServerIsRefusedWithoutTheInsecureOption(string $mode): void
    {
        $this->expectException(\ValueError::class);
        $this->expectExceptionMessage('tls_insecure=1');
        Connection::connect(TlsPostgresServer::tcpConnectionString() . ' sslmode=' . $mode);
    }

    #[TestWith([TestCertificates::WRONG_HOST, 'sslmode=require tls_insecure=1'], 'a certificate for another host, in the key/value form')]
    #[TestWith([TestCertificates::SELF_SIGNED, 'sslmode=require tls_insecure=1'], 'a self-signed certificate')]
    #[TestWith([TestCertificates::WRONG_HOST, 'tls_insecure=1'], 'libpq\'s own prefer, by name')]
    public function testTheSameCertificateIsAcceptedEncryptedWithTheInsecureOptIn(string $certificate, string $options): void
    {
        TlsPostgresServer::present($certificate);

        $connection = Connection::connect(TlsPostgresServer::tcpConnectionString() . ' ' . $options);

        self::assertTrue($connection->queryValue('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()'));
        $connection->close();
    }

    public function testTheInsecureOptionWorksInAUriToo(): void
    {
        TlsPostgresServer::present(TestCertificates::SELF_SIGNED);
        \preg_match('/port=(\d+)/', TlsPostgresServer::tcpConnectionString(), $port);

        $connection = Connection::connect(\sprintf('postgresql://bobbin:bobbin@127.0.0.1:%d/bobbin?sslmode=require&tls_insecure=1', $port[1]));

        self::assertTrue($connection->queryValue('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()'));
        $connection->close();
    }
}
