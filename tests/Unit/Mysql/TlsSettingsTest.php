<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Mysql;

use Bobbin\Mysql\ConnectionConfig;
use Bobbin\Mysql\TlsMode;
use PHPUnit\Framework\Attributes\TestWith;
use PHPUnit\Framework\TestCase;

/** TLS checks the server's certificate in every mode unless tls_insecure=1 says otherwise (docs/MYSQL.md, "TLS"). */
final class TlsSettingsTest extends TestCase
{
    #[TestWith(['', TlsMode::Preferred, true], 'preferred by default, verified')]
    #[TestWith(['?tls_ca=/ca.pem', TlsMode::Preferred, true], 'preferred with a CA: verified against it')]
    #[TestWith(['?tls=required', TlsMode::Required, true], 'required: verified')]
    #[TestWith(['?tls_verify=1', TlsMode::Preferred, true], 'the old tls_verify=1 changes nothing')]
    #[TestWith(['?tls_insecure=1', TlsMode::Preferred, false], 'preferred without verification, by the name that says the risk')]
    #[TestWith(['?tls=required&tls_insecure=1', TlsMode::Required, false], 'required without verification, by that name')]
    #[TestWith(['?tls_insecure=0', TlsMode::Preferred, true], 'tls_insecure=0: verified')]
    public function testVerificationIsOnInEveryModeUnlessTheInsecureOptionSaysOtherwise(string $options, TlsMode $mode, bool $verifies): void
    {
        $config = ConnectionConfig::fromUrl('mysql://u:p@db.example' . $options);

        self::assertSame($mode, $config->tls);
        self::assertSame($verifies, $config->verifiesTls());
    }

    public function testTheOldTlsVerifyOffIsRefusedRatherThanSilentlyVerifyingAgain(): void
    {
        $this->expectException(\ValueError::class);
        $this->expectExceptionMessage('tls_insecure=1');
        ConnectionConfig::fromUrl('mysql://u:p@db.example?tls_verify=0');
    }
}
