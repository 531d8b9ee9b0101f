<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Mysql;

use Bobbin\Mysql\Exception\UnsupportedAuthPluginException;
use Bobbin\Mysql\Internal\Authentication;
use Bobbin\Mysql\Internal\HandshakeResponse;
use Bobbin\Mysql\Internal\Protocol;
use Bobbin\Mysql\Internal\ServerGreeting;
use PHPUnit\Framework\TestCase;

final class HandshakeCodecTest extends TestCase
{
    /** A MariaDB 10.11 greeting as it comes off the wire (nonce "abcdefgh" + "ijklmnopqrst"). */
    private static function mariadbGreeting(): string
    {
        return "\x0a" . "5.5.5-10.11.19-MariaDB\0" . \pack('V', 42) . 'abcdefgh' . "\0"
            . \pack('v', 0xf7fe) . "\x2d" . \pack('v', 0x0002) . \pack('v', 0x81ff) . "\x15"
            . \str_repeat("\0", 6) . \pack('V', 0x1d) . 'ijklmnopqrst' . "\0" . "mysql_native_password\0";
    }

    public function testAMariaDbGreetingIsReadFieldByField(): void
    {
        $greeting = ServerGreeting::parse(self::mariadbGreeting());

        self::assertSame('5.5.5-10.11.19-MariaDB', $greeting->serverVersion);
        self::assertSame(42, $greeting->connectionId);
        self::assertSame('abcdefghijklmnopqrst', $greeting->nonce);
        self::assertSame('mysql_native_password', $greeting->authPlugin);
        self::assertSame(0x81fff7fe, $greeting->capabilities);
        self::assertSame(0x1d, $greeting->mariadbCapabilities, 'MariaDB flags sit in the last four reserved bytes');
        self::assertSame(0x0002, $greeting->status);
        self::assertTrue($greeting->isMariaDb());
    }

    public function testAMysqlGreetingHasNoMariaDbCapabilities(): void
    {
        $greeting = "\x0a" . "8.0.36\0" . \pack('V', 7) . 'abcdefgh' . "\0"
            . \pack('v', 0xffff) . "\xff" . \pack('v', 0x0002) . \pack('v', 0xdfff) . "\x15"
            . \str_repeat("\0", 10) . 'ijklmnopqrst' . "\0" . "caching_sha2_password\0";
        $parsed = ServerGreeting::parse($greeting);

        self::assertSame(0, $parsed->mariadbCapabilities);
        self::assertSame('caching_sha2_password', $parsed->authPlugin);
        self::assertSame('abcdefghijklmnopqrst', $parsed->nonce);
    }

    public function testTheHandshakeResponseCarriesUserAuthDatabasePluginAndAttributes(): void
    {
        $capabilities = Protocol::CLIENT_PROTOCOL_41 | Protocol::CLIENT_PLUGIN_AUTH | Protocol::CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA
            | Protocol::CLIENT_CONNECT_WITH_DB | Protocol::CLIENT_CONNECT_ATTRS;
        $payload = HandshakeResponse::build($capabilities, 8, 'app', "\x01\x02", 'shop', 'mysql_native_password', ['k' => 'v']);

        self::assertSame(
            \pack('VVC', $capabilities, 0x40000000, 45) . \str_repeat("\0", 19) . \pack('V', 8)
            . "app\0" . "\x02\x01\x02" . "shop\0" . "mysql_native_password\0" . "\x04\x01k\x01v",
            $payload,
        );
    }

    public function testTheSslRequestIsTheFirst32BytesWithTheSslFlag(): void
    {
        $request = HandshakeResponse::sslRequest(Protocol::CLIENT_PROTOCOL_41, 0);

        self::assertSame(32, \strlen($request));
        self::assertSame(Protocol::CLIENT_PROTOCOL_41 | Protocol::CLIENT_SSL, \unpack('V', $request)[1]);
    }

    public function testNativePasswordScramblesAsTheProtocolDefines(): void
    {
        $nonce = 'abcdefghijklmnopqrst';
        $expected = \sha1('secret', true) ^ \sha1($nonce . \sha1(\sha1('secret', true), true), true);

        self::assertSame($expected, Authentication::nativePassword('secret', $nonce));
        self::assertSame('', Authentication::nativePassword('', $nonce), 'no password, no scramble');
    }

    public function testCachingSha2ScramblesAsTheProtocolDefines(): void
    {
        $nonce = 'abcdefghijklmnopqrst';
        $hash = \hash('sha256', 'secret', true);
        $expected = $hash ^ \hash('sha256', \hash('sha256', $hash, true) . $nonce, true);

        self::assertSame($expected, Authentication::cachingSha2('secret', $nonce));
    }

    public function testThePasswordForRsaIsXoredWithTheNonceAndReadableWithThePrivateKey(): void
    {
        $key = \openssl_pkey_new(['private_key_bits' => 2048]);
        self::assertNotFalse($key);
        $public = \openssl_pkey_get_details($key)['key'];
        $encrypted = Authentication::encryptPassword('secret', 'abcdefghijklmnopqrst', $public);

        self::assertTrue(\openssl_private_decrypt($encrypted, $plain, $key, \OPENSSL_PKCS1_OAEP_PADDING));
        self::assertSame("secret\0" ^ 'abcdefg', $plain);
    }

    public function testAnUnknownPluginIsAnErrorThatNamesIt(): void
    {
        $this->expectException(UnsupportedAuthPluginException::class);
        $this->expectExceptionMessage('"auth_gssapi_client"');
        Authentication::respond('auth_gssapi_client', 'x', 'n', true);
    }

    public function testTheClearPasswordIsNeverSentOverPlainTcp(): void
    {
        self::assertSame("pw\0", Authentication::respond('mysql_clear_password', 'pw', '', true));
        $this->expectException(UnsupportedAuthPluginException::class);
        Authentication::respond('mysql_clear_password', 'pw', '', false);
    }
}
