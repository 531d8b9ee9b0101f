<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Nats;

use Bobbin\Nats\Exception\ConnectException;
use Bobbin\Tests\Support\Tls\TestCertificates;
use PHPUnit\Framework\Attributes\TestWith;

/** TLS with NATS verifies the server's certificate and name unless tls_insecure=1 says otherwise (docs/CLIENTS.md, "TLS"). */
final class TlsVerificationTest extends NatsTestCase
{
    public function testACertificateSignedByTheGivenCaForTheHostIsAccepted(): void
    {
        $server = $this->tlsServer(TestCertificates::LOCALHOST);

        $connection = $this->connect($server . '?tls_ca=' . \rawurlencode(TestCertificates::ca()));

        $connection->flush();
        self::assertTrue($connection->serverInfo()['tls_required'] ?? false);
    }

    #[TestWith([TestCertificates::WRONG_HOST, 'did not match expected'], 'a certificate for another host')]
    #[TestWith([TestCertificates::SELF_SIGNED, 'certificate verify failed'], 'a self-signed certificate')]
    public function testACertificateThatFailsTheCheckIsRefusedByDefaultWithAMessageNamingTheOption(string $certificate, string $reason): void
    {
        $server = $this->tlsServer($certificate);

        try {
            $this->connect($server . '?tls_ca=' . \rawurlencode(TestCertificates::ca()), reconnect: false);
            self::fail('an unverifiable certificate was accepted');
        } catch (ConnectException $e) {
            self::assertStringContainsString('TLS with NATS', $e->getMessage());
            self::assertStringContainsString($reason, $e->getMessage());
            self::assertStringContainsString('tls_insecure=1', $e->getMessage());
        }
    }

    #[TestWith([TestCertificates::WRONG_HOST], 'a certificate for another host')]
    #[TestWith([TestCertificates::SELF_SIGNED], 'a self-signed certificate')]
    public function testTheSameCertificateIsAcceptedWithTheInsecureOptIn(string $certificate): void
    {
        $server = $this->tlsServer($certificate);

        $connection = $this->connect($server . '?tls_insecure=1');

        $connection->flush();
        self::assertTrue($connection->config->tlsInsecure);
    }

    public function testTheOldTlsVerifyOffIsRefusedRatherThanReadAsVerification(): void
    {
        $this->expectException(\ValueError::class);
        $this->expectExceptionMessage('tls_insecure=1');
        $this->connect('tls://127.0.0.1:1?tls_verify=0');
    }

    /** A private nats-server that requires TLS with the certificate; its nats:// URL. */
    private function tlsServer(string $certificate): string
    {
        $server = $this->privateServer(\sprintf(
            'tls { cert_file: "%s", key_file: "%s" }',
            TestCertificates::certificate($certificate),
            TestCertificates::key($certificate),
        ));

        return $server->url();
    }
}
