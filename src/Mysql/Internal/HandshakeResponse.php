<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Internal;

/**
 * The client's answer to the greeting (HandshakeResponse41), and the SSLRequest that precedes
 * it when the connection is to be encrypted (the same first 32 bytes).
 *
 * @internal
 */
final class HandshakeResponse
{
    /** The largest packet this client accepts (1 GiB, the protocol's ceiling). */
    private const MAX_PACKET = 0x40000000;

    public static function sslRequest(int $capabilities, int $mariadbCapabilities): string
    {
        return self::head($capabilities | Protocol::CLIENT_SSL, $mariadbCapabilities);
    }

    /**
     * @param array<string, string> $attributes connection attributes (shown in performance_schema)
     */
    public static function build(
        int $capabilities,
        int $mariadbCapabilities,
        string $user,
        string $authResponse,
        string $database,
        string $authPlugin,
        array $attributes,
    ): string {
        $payload = self::head($capabilities, $mariadbCapabilities) . $user . "\0";
        if (($capabilities & Protocol::CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA) !== 0) {
            $payload .= Wire::lengthEncodedString($authResponse);
        } else {
            $payload .= \chr(\strlen($authResponse)) . $authResponse;
        }
        if (($capabilities & Protocol::CLIENT_CONNECT_WITH_DB) !== 0) {
            $payload .= $database . "\0";
        }
        if (($capabilities & Protocol::CLIENT_PLUGIN_AUTH) !== 0) {
            $payload .= $authPlugin . "\0";
        }
        if (($capabilities & Protocol::CLIENT_CONNECT_ATTRS) !== 0) {
            $encoded = '';
            foreach ($attributes as $key => $value) {
                $encoded .= Wire::lengthEncodedString((string) $key) . Wire::lengthEncodedString($value);
            }
            $payload .= Wire::lengthEncodedString($encoded);
        }

        return $payload;
    }

    /** MariaDB reads its own capability flags from the last 4 of the 23 filler bytes. */
    private static function head(int $capabilities, int $mariadbCapabilities): string
    {
        return \pack('VVC', $capabilities, self::MAX_PACKET, Protocol::CHARSET_UTF8MB4) . \str_repeat("\0", 19) . \pack('V', $mariadbCapabilities);
    }
}
