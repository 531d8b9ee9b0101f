<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Internal;

/**
 * An ERR packet: error number, SQLSTATE, message.
 *
 * @internal
 */
final class ServerError
{
    public function __construct(
        public readonly int $code,
        public readonly string $sqlState,
        public readonly string $message,
    ) {
    }

    public static function parse(string $payload): self
    {
        $offset = 1;
        $code = Wire::readUint16($payload, $offset);
        $sqlState = '';
        // The '#' marker and SQLSTATE are missing before the handshake agreed on protocol 4.1.
        if (($payload[$offset] ?? '') === '#') {
            $sqlState = \substr($payload, $offset + 1, 5);
            $offset += 6;
        }

        return new self($code, $sqlState, \substr($payload, $offset));
    }
}
