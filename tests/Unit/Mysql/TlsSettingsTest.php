<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Mysql;

use Bobbin\Mysql\ConnectionConfig;
use PHPUnit\Framework\Attributes\TestWith;
use PHPUnit\Framework\TestCase;

/** When TLS checks the server's certificate, and when it may carry the password itself. */
final class TlsSettingsTest extends TestCase
{
    #[TestWith(['', false, false], 'preferred by default: encrypted, unverified, no password in clear')]
    #[TestWith(['?tls_ca=/ca.pem', true, true], 'preferred with a CA: verified')]
    #[TestWith(['?tls_verify=1', true, true], 'preferred, verification asked for')]
    #[TestWith(['?tls_verify=0', false, true], 'preferred, verification turned off by name: the caller vouches')]
    #[TestWith(['?tls=required', true, true], 'required: verified by default')]
    #[TestWith(['?tls=required&tls_verify=0', false, true], 'required without verification, by name')]
    public function testVerificationFollowsTheModeUnlessAskedOtherwise(string $options, bool $verifies, bool $trustedWithPassword): void
    {
        $config = ConnectionConfig::fromUrl('mysql://u:p@db.example' . $options);

        self::assertSame($verifies, $config->verifiesTls());
        self::assertSame($trustedWithPassword, $config->trustsTlsWithPassword());
    }
}
