<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Process;

use Bobbin\Process\Admin\AdminAccess;
use Bobbin\Process\Admin\AdminExposure;
use PHPUnit\Framework\Attributes\TestWith;
use PHPUnit\Framework\TestCase;

/** Who may read the admin listener (docs/OBSERVABILITY.md, "Who can read the admin listener"). */
final class AdminAccessTest extends TestCase
{
    private const TOKEN = '0123456789abcdef0123456789abcdef';

    #[TestWith(['127.0.0.1:9000'])]
    #[TestWith(['127.8.9.10:0'])]
    #[TestWith(['[::1]:9000'])]
    #[TestWith(['localhost:9000'])]
    #[TestWith(['unix:/run/bobbin/admin.sock'])]
    public function testALocalAddressNeedsNoToken(string $address): void
    {
        $access = AdminAccess::for($address, null, false);

        self::assertSame(AdminExposure::LocalOnly, $access->exposure);
        self::assertTrue($access->allows(''));
    }

    #[TestWith(['0.0.0.0:9000'])]
    #[TestWith(['[::]:9000'])]
    #[TestWith(['10.1.2.3:9000'])]
    #[TestWith(['admin.example:9000'])]
    public function testAnyOtherAddressIsRefusedWithoutATokenOrTheInsecureFlagAndTheMessageNamesBoth(string $address): void
    {
        try {
            AdminAccess::for($address, null, false);
            self::fail('an address other hosts reach was accepted without authentication');
        } catch (\InvalidArgumentException $e) {
            self::assertStringContainsString('--admin-token-file', $e->getMessage());
            self::assertStringContainsString('--admin-insecure', $e->getMessage());
        }
    }

    public function testTheInsecureFlagOpensItAndSaysSo(): void
    {
        $access = AdminAccess::for('0.0.0.0:9000', null, true);

        self::assertSame(AdminExposure::OpenToAnyone, $access->exposure);
        self::assertTrue($access->allows(''));
        self::assertStringContainsString('NO AUTHENTICATION', $access->describe());
    }

    #[TestWith(['0.0.0.0:9000'])]
    #[TestWith(['127.0.0.1:9000'])]
    public function testWithATokenOnlyTheRightBearerIsAllowedWhateverTheAddress(string $address): void
    {
        $access = AdminAccess::for($address, self::TOKEN, false);

        self::assertSame(AdminExposure::TokenRequired, $access->exposure);
        self::assertTrue($access->allows('Bearer ' . self::TOKEN));
        self::assertTrue($access->allows('bearer ' . self::TOKEN));
        self::assertFalse($access->allows(''));
        self::assertFalse($access->allows('Bearer ' . \substr(self::TOKEN, 0, -1)));
        self::assertFalse($access->allows('Bearer ' . self::TOKEN . 'x'));
        self::assertFalse($access->allows('Basic ' . \base64_encode('admin:' . self::TOKEN)));
        self::assertFalse($access->allows(self::TOKEN));
    }

    public function testTheTokenIsKeptOnlyAsADigest(): void
    {
        $access = AdminAccess::for('0.0.0.0:9000', self::TOKEN, false);

        self::assertStringNotContainsString(self::TOKEN, \print_r($access, true));
        self::assertStringNotContainsString(self::TOKEN, \var_export($access, true));
    }

    #[TestWith(['short'])]
    #[TestWith(['with a space in it but long enough'])]
    public function testAWeakOrMalformedTokenIsRefused(string $token): void
    {
        $this->expectException(\InvalidArgumentException::class);
        $this->expectExceptionMessage('--admin-token-file');
        AdminAccess::for('0.0.0.0:9000', $token, false);
    }
}
