<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Internal;

use Bobbin\Mysql\Exception\ConnectException;
use Bobbin\Mysql\Exception\UnsupportedAuthPluginException;

/**
 * The authentication plugins this client speaks, as pure functions of password and nonce.
 *
 * @internal
 */
final class Authentication
{
    public const NATIVE = 'mysql_native_password';
    public const CACHING_SHA2 = 'caching_sha2_password';
    public const CLEAR = 'mysql_clear_password';

    /** caching_sha2_password's AuthMoreData: the scramble matched the server's cache. */
    public const FAST_AUTH_SUCCESS = "\x03";
    /** caching_sha2_password's AuthMoreData: send the password itself (secure channel or RSA). */
    public const PERFORM_FULL_AUTHENTICATION = "\x04";
    /** caching_sha2_password: the client asks for the server's RSA public key. */
    public const REQUEST_PUBLIC_KEY = "\x02";

    /**
     * The first answer to a plugin's challenge.
     *
     * @throws UnsupportedAuthPluginException
     */
    public static function respond(string $plugin, #[\SensitiveParameter] string $password, string $nonce, bool $secureChannel): string
    {
        return match ($plugin) {
            self::NATIVE => self::nativePassword($password, $nonce),
            self::CACHING_SHA2 => self::cachingSha2($password, $nonce),
            self::CLEAR => $secureChannel
                ? $password . "\0"
                : throw new UnsupportedAuthPluginException('The server asked for mysql_clear_password over TCP without verified TLS; the password is not sent in clear text (use tls=required with the server\'s CA, or the unix socket)'),
            default => throw new UnsupportedAuthPluginException(\sprintf(
                'The server asked for the authentication plugin "%s", which this client does not support (it speaks %s, %s and, over TLS or a unix socket, %s)',
                $plugin,
                self::NATIVE,
                self::CACHING_SHA2,
                self::CLEAR,
            )),
        };
    }

    /** SHA1(password) XOR SHA1(nonce + SHA1(SHA1(password))); empty for no password. */
    public static function nativePassword(#[\SensitiveParameter] string $password, string $nonce): string
    {
        if ($password === '') {
            return '';
        }
        $stage1 = \sha1($password, true);

        return $stage1 ^ \sha1(\substr($nonce, 0, 20) . \sha1($stage1, true), true);
    }

    /** SHA256(password) XOR SHA256(SHA256(SHA256(password)) + nonce); empty for no password. */
    public static function cachingSha2(#[\SensitiveParameter] string $password, string $nonce): string
    {
        if ($password === '') {
            return '';
        }
        $stage1 = \hash('sha256', $password, true);

        return $stage1 ^ \hash('sha256', \hash('sha256', $stage1, true) . \substr($nonce, 0, 20), true);
    }

    /**
     * caching_sha2_password's full authentication without TLS: the password (NUL-terminated,
     * XOR the nonce) encrypted with the server's RSA public key, OAEP padding.
     */
    public static function encryptPassword(#[\SensitiveParameter] string $password, string $nonce, string $publicKeyPem): string
    {
        $plain = $password . "\0";
        $nonce = \substr($nonce, 0, 20);
        if ($nonce === '') {
            // An AuthSwitchRequest may carry none: nothing to mask with (and a division by zero below).
            throw new ConnectException('The server asked for the password under RSA without a nonce to mask it with');
        }
        $mask = \str_repeat($nonce, \intdiv(\strlen($plain), \strlen($nonce)) + 1);
        $key = @\openssl_pkey_get_public($publicKeyPem);
        if ($key === false) {
            throw new ConnectException('The server sent an RSA public key that cannot be read');
        }
        if (!@\openssl_public_encrypt($plain ^ \substr($mask, 0, \strlen($plain)), $encrypted, $key, \OPENSSL_PKCS1_OAEP_PADDING)) {
            throw new ConnectException('Encrypting the password with the server\'s RSA public key failed');
        }

        return $encrypted;
    }
}
