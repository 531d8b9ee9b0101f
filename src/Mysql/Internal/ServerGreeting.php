<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Internal;

use Bobbin\Mysql\Exception\ProtocolException;

/**
 * The server's first packet (Handshake v10): who it is, what it can do, and the nonce that
 * authentication scrambles the password with.
 *
 * @internal
 */
final class ServerGreeting
{
    public function __construct(
        public readonly string $serverVersion,
        public readonly int $connectionId,
        /** The lower 32 capability bits; MariaDB's own flags are apart in $mariadbCapabilities. */
        public readonly int $capabilities,
        public readonly int $mariadbCapabilities,
        public readonly int $charset,
        public readonly int $status,
        /** 20 bytes, without the trailing NUL. */
        public readonly string $nonce,
        public readonly string $authPlugin,
    ) {
    }

    public static function parse(string $payload): self
    {
        $offset = 0;
        $version = Wire::readUint8($payload, $offset);
        if ($version !== 10) {
            throw new ProtocolException(\sprintf('Unsupported protocol version %d (only Handshake v10 is spoken)', $version));
        }
        $serverVersion = Wire::readNulString($payload, $offset);
        $connectionId = Wire::readUint32($payload, $offset);
        $nonce = Wire::readFixed($payload, $offset, 8);
        $offset++; // filler
        $capabilities = Wire::readUint16($payload, $offset);
        if ($offset >= \strlen($payload)) {
            return new self($serverVersion, $connectionId, $capabilities, 0, Protocol::CHARSET_UTF8MB4, 0, $nonce, 'mysql_native_password');
        }
        $charset = Wire::readUint8($payload, $offset);
        $status = Wire::readUint16($payload, $offset);
        $capabilities |= Wire::readUint16($payload, $offset) << 16;
        $authDataLength = Wire::readUint8($payload, $offset);
        $offset += 6;
        $mariadb = Wire::readUint32($payload, $offset);
        if (($capabilities & Protocol::CLIENT_MYSQL) !== 0) {
            $mariadb = 0; // MySQL: those four bytes are filler
        }
        if (($capabilities & Protocol::CLIENT_SECURE_CONNECTION) !== 0) {
            $length = ($capabilities & Protocol::CLIENT_PLUGIN_AUTH) !== 0 ? \max(12, $authDataLength - 9) : 12;
            $nonce .= Wire::readFixed($payload, $offset, $length);
            $offset++; // the NUL after the nonce
        }
        $plugin = 'mysql_native_password';
        if (($capabilities & Protocol::CLIENT_PLUGIN_AUTH) !== 0 && $offset < \strlen($payload)) {
            $end = \strpos($payload, "\0", $offset);
            $plugin = $end === false ? \substr($payload, $offset) : \substr($payload, $offset, $end - $offset);
        }

        return new self($serverVersion, $connectionId, $capabilities, $mariadb, $charset, $status, $nonce, $plugin);
    }

    public function isMariaDb(): bool
    {
        return \str_contains($this->serverVersion, 'MariaDB');
    }
}
