<?php

declare(strict_types=1);

namespace Bobbin\Tarantool\Internal;

/**
 * The chap-sha1 scramble: sha1(password) XOR sha1(salt[0..20] . sha1(sha1(password))). The server
 * keeps only sha1(sha1(password)); the password itself never crosses the wire.
 *
 * @internal
 */
final class ChapSha1
{
    public static function scramble(#[\SensitiveParameter] string $password, string $salt): string
    {
        $hash1 = \sha1($password, true);
        $hash2 = \sha1($hash1, true);

        return $hash1 ^ \sha1(\substr($salt, 0, 20) . $hash2, true);
    }
}
