<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Redis;

use Bobbin\Redis\Connection;
use Bobbin\Redis\Exception\ConnectException;
use Bobbin\Tests\Support\Redis\TlsRedisServer;
use Bobbin\Tests\Support\Tls\TestCertificates;
use PHPUnit\Framework\Attributes\TestWith;
use PHPUnit\Framework\TestCase;

/** rediss:// verifies the server's certificate and name unless tls_insecure=1 says otherwise (docs/CLIENTS.md, "TLS"). */
final class TlsVerificationTest extends TestCase
{
    /** @var list<TlsRedisServer> */
    private array $servers = [];

    protected function tearDown(): void
    {
        foreach ($this->servers as $server) {
            $server->stop();
        }
    }

    public function testACertificateSignedByTheGivenCaForTheHostIsAccepted(): void
    {
        $server = $this->server(TestCertificates::LOCALHOST);

        $connection = Connection::connect(\sprintf('rediss://127.0.0.1:%d?tls_ca=%s', $server->port, TestCertificates::ca()));

        self::assertSame('PONG', $connection->execute(['PING']));
        $connection->close();
    }

    #[TestWith([TestCertificates::WRONG_HOST, 'did not match expected'], 'a certificate for another host')]
    #[TestWith([TestCertificates::SELF_SIGNED, 'certificate verify failed'], 'a self-signed certificate')]
    public function testACertificateThatFailsTheCheckIsRefusedByDefaultWithAMessageNamingTheOption(string $certificate, string $reason): void
    {
        $server = $this->server($certificate);

        try {
            Connection::connect(\sprintf('rediss://127.0.0.1:%d?tls_ca=%s', $server->port, TestCertificates::ca()));
            self::fail('an unverifiable certificate was accepted');
        } catch (ConnectException $e) {
            self::assertStringContainsString('TLS with Redis', $e->getMessage());
            self::assertStringContainsString($reason, $e->getMessage());
            self::assertStringContainsString('tls_insecure=1', $e->getMessage());
        }
    }

    #[TestWith([TestCertificates::WRONG_HOST], 'a certificate for another host')]
    #[TestWith([TestCertificates::SELF_SIGNED], 'a self-signed certificate')]
    public function testTheSameCertificateIsAcceptedWithTheInsecureOptIn(string $certificate): void
    {
        $server = $this->server($certificate);

        $connection = Connection::connect(\sprintf('rediss://127.0.0.1:%d?tls_insecure=1', $server->port));

        self::assertSame('PONG', $connection->execute(['PING']));
        $connection->close();
    }

    public function testTheOldTlsVerifyOffIsRefusedRatherThanReadAsVerification(): void
    {
        $this->expectException(\ValueError::class);
        $this->expectExceptionMessage('tls_insecure=1');
        Connection::connect('rediss://127.0.0.1:1?tls_verify=0');
    }

    private function server(string $certificate): TlsRedisServer
    {
        return $this->servers[] = TlsRedisServer::start($certificate);
    }
}
