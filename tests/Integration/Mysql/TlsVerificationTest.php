<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Mysql;

use Bobbin\Mysql\Connection;
use Bobbin\Mysql\ConnectionConfig;
use Bobbin\Mysql\Exception\ConnectException;
use Bobbin\Tests\Support\Mysql\TlsMysqlServer;
use Bobbin\Tests\Support\Tls\TestCertificates;
use PHPUnit\Framework\Attributes\TestWith;
use PHPUnit\Framework\TestCase;

/**
 * MySQL's TLS verifies the server's certificate and name in every mode — the default
 * `preferred` too — unless tls_insecure=1 says otherwise; a refused certificate never falls back
 * to clear text (docs/MYSQL.md, "TLS"; docs/CLIENTS.md, "TLS").
 */
final class TlsVerificationTest extends TestCase
{
    public static function setUpBeforeClass(): void
    {
        TlsMysqlServer::start();
    }

    public static function tearDownAfterClass(): void
    {
        TlsMysqlServer::stop();
    }

    #[TestWith([''], 'preferred, the default')]
    #[TestWith(['&tls=required'], 'required')]
    public function testACertificateSignedByTheGivenCaForTheHostIsAccepted(string $mode): void
    {
        TlsMysqlServer::present(TestCertificates::LOCALHOST);

        $connection = Connection::connect(ConnectionConfig::fromUrl(TlsMysqlServer::tcpUrl() . '?tls_ca=' . TestCertificates::ca() . $mode));

        self::assertTrue($connection->isEncrypted());
        $connection->close();
    }

    #[TestWith([TestCertificates::WRONG_HOST, '', 'did not match expected'], 'preferred, a certificate for another host')]
    #[TestWith([TestCertificates::SELF_SIGNED, '', 'certificate verify failed'], 'preferred, a self-signed certificate')]
    #[TestWith([TestCertificates::WRONG_HOST, '&tls=required', 'did not match expected'], 'required, a certificate for another host')]
    #[TestWith([TestCertificates::SELF_SIGNED, '&tls=required', 'certificate verify failed'], 'required, a self-signed certificate')]
    public function testACertificateThatFailsTheCheckIsRefusedWithAMessageNamingTheOptionNeverAClearTextFallback(string $certificate, string $mode, string $reason): void
    {
        TlsMysqlServer::present($certificate);

        try {
            Connection::connect(ConnectionConfig::fromUrl(TlsMysqlServer::tcpUrl() . '?tls_ca=' . TestCertificates::ca() . $mode));
            self::fail('an unverifiable certificate was accepted (or the connection went on in clear text)');
        } catch (ConnectException $e) {
            self::assertStringContainsString('TLS with MySQL', $e->getMessage());
            self::assertStringContainsString($reason, $e->getMessage());
            self::assertStringContainsString('tls_insecure=1', $e->getMessage());
        }
    }

    #[TestWith([TestCertificates::WRONG_HOST, ''], 'preferred, a certificate for another host')]
    #[TestWith([TestCertificates::SELF_SIGNED, '&tls=required'], 'required, a self-signed certificate')]
    public function testTheSameCertificateIsAcceptedEncryptedWithTheInsecureOptIn(string $certificate, string $mode): void
    {
        TlsMysqlServer::present($certificate);

        $connection = Connection::connect(ConnectionConfig::fromUrl(TlsMysqlServer::tcpUrl() . '?tls_insecure=1' . $mode));

        self::assertTrue($connection->isEncrypted());
        self::assertNotSame('', $connection->queryOne("SHOW SESSION STATUS LIKE 'Ssl_cipher'")['Value'] ?? '');
        $connection->close();
    }
}
