<?php

declare(strict_types=1);

namespace Bobbin\Tarantool\Internal;

use Bobbin\Tarantool\Exception\ProtocolException;

/**
 * The 128 bytes a Tarantool server sends first: a line naming the server, version, protocol
 * and instance, then a line with the base64 salt for authentication, both padded to 64 bytes.
 *
 * @internal
 */
final class Greeting
{
    public const SIZE = 128;

    private function __construct(
        public readonly string $version,
        public readonly string $protocol,
        public readonly string $instanceUuid,
        public readonly string $salt,
    ) {
    }

    /** @throws ProtocolException when the bytes are not a Tarantool binary-protocol greeting */
    public static function parse(string $bytes): self
    {
        $first = \rtrim(\substr($bytes, 0, 63));
        if (\preg_match('/^Tarantool (\S+) \(([^)]+)\)\s*(\S*)/', $first, $m) !== 1) {
            throw new ProtocolException(\sprintf('Not a Tarantool greeting: "%s"', \addcslashes(\substr($first, 0, 40), "\0..\37\177..\377")));
        }
        if (\strlen($bytes) !== self::SIZE || $bytes[63] !== "\n" || $bytes[127] !== "\n") {
            throw new ProtocolException('The server did not greet as Tarantool does (128 bytes in two lines)');
        }
        if ($m[2] !== 'Binary') {
            throw new ProtocolException(\sprintf('The server speaks the %s protocol, not the binary one (a console port?)', $m[2]));
        }
        $salt = \base64_decode(\trim(\substr($bytes, 64, 63)), true);
        if ($salt === false || \strlen($salt) < 20) {
            throw new ProtocolException('The greeting carries no valid salt');
        }

        return new self($m[1], $m[2], $m[3], $salt);
    }

    /** Whether the server's version is at least $version ("2.10.0"). */
    public function atLeast(string $version): bool
    {
        return \version_compare(\preg_replace('/-.*$/', '', $this->version) ?? $this->version, $version, '>=');
    }
}
