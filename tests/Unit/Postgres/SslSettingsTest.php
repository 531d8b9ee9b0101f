<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Postgres;

use Bobbin\Postgres\ConnectionConfig;
use PHPUnit\Framework\Attributes\TestWith;
use PHPUnit\Framework\TestCase;

/** What libpq is told about TLS for what the caller wrote (docs/POSTGRES.md, "TLS"). */
final class SslSettingsTest extends TestCase
{
    public function testByDefaultLibpqVerifiesFullyAndOnlyAServerWithoutTlsGetsClearText(): void
    {
        $config = new ConnectionConfig('host=db.example dbname=app sslrootcert=/ca.pem');

        self::assertSame('host=db.example dbname=app sslrootcert=/ca.pem sslmode=verify-full', $config->libpqString());
        self::assertSame('host=db.example dbname=app sslrootcert=/ca.pem sslmode=disable', $config->clearTextFallback());
        self::assertFalse($config->isTlsInsecure());
    }

    public function testAUriGetsTheSameDefault(): void
    {
        $config = new ConnectionConfig('postgresql://app:secret@db.example/app?sslrootcert=/ca.pem');

        self::assertSame('postgresql://app:secret@db.example/app?sslrootcert=/ca.pem&sslmode=verify-full', $config->libpqString());
    }

    public function testWithoutARootCertificateTheSystemsCasAreGiven(): void
    {
        $config = new ConnectionConfig('host=db.example');

        self::assertMatchesRegularExpression('/ sslmode=verify-full sslrootcert=\S+$/', $config->libpqString());
    }

    #[TestWith(['host=db sslmode=verify-full sslrootcert=/ca.pem'], 'verify-full, named')]
    #[TestWith(['host=db sslmode=disable'], 'clear text, named')]
    public function testANamedModeThatVerifiesOrDoesNotEncryptHasNoFallback(string $connectionString): void
    {
        self::assertNull((new ConnectionConfig($connectionString))->clearTextFallback());
    }

    #[TestWith(['host=db sslmode=require tls_insecure=1', 'host=db sslmode=require'])]
    #[TestWith(['host=db tls_insecure=1 sslmode=require', 'host=db sslmode=require'])]
    #[TestWith(['postgresql://db/app?tls_insecure=1&sslmode=require', 'postgresql://db/app?sslmode=require'])]
    #[TestWith(['postgresql://db/app?sslmode=require&tls_insecure=1', 'postgresql://db/app?sslmode=require'])]
    public function testTheInsecureOptionIsTakenOutOfWhatLibpqSees(string $connectionString, string $libpq): void
    {
        $config = new ConnectionConfig($connectionString);

        self::assertSame($libpq, $config->libpqString());
        self::assertTrue($config->isTlsInsecure());
    }

    public function testTheConstructorsOptInAllowsAModeThatDoesNotVerify(): void
    {
        $config = new ConnectionConfig('host=db sslmode=require', tlsInsecure: true);

        self::assertSame('host=db sslmode=require', $config->libpqString());
    }

    #[TestWith(['host=db sslmode=require'])]
    #[TestWith(['host=db sslmode=prefer'])]
    #[TestWith(['host=db sslmode=allow'])]
    #[TestWith(['host=db sslmode=verify-ca'])]
    #[TestWith(['postgresql://db/app?sslmode=require'])]
    public function testAModeThatDoesNotCheckTheServerIsRefusedWithAMessageNamingTheOption(string $connectionString): void
    {
        $this->expectException(\ValueError::class);
        $this->expectExceptionMessage('tls_insecure=1');
        new ConnectionConfig($connectionString);
    }
}
