<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Internal;

/**
 * What an OK packet (or the end of a result set) reports.
 *
 * @internal
 */
final class ServerStatus
{
    public function __construct(
        public readonly int $affectedRows,
        /** An unsigned BIGINT: above PHP_INT_MAX its decimal string. */
        public readonly int|string $lastInsertId,
        public readonly int $status,
        public readonly int $warnings,
    ) {
    }

    /** An OK packet: 0x00 (or 0xFE ending a result set with CLIENT_DEPRECATE_EOF). */
    public static function fromOk(string $payload): self
    {
        $offset = 1;
        $affected = (int) Wire::readLengthEncodedInt($payload, $offset);
        $insertId = (int) Wire::readLengthEncodedInt($payload, $offset);
        if ($insertId < 0) {
            // An id past PHP_INT_MAX (BIGINT UNSIGNED AUTO_INCREMENT) read as 64 signed bits.
            $insertId = \sprintf('%u', $insertId);
        }
        if (\strlen($payload) < $offset + 4) {
            return new self($affected, $insertId, 0, 0);
        }
        /** @var array{1: int, 2: int} $fields */
        $fields = \unpack('v2', $payload, $offset);

        return new self($affected, $insertId, $fields[1], $fields[2]);
    }

    /** An EOF packet: 0xFE, warnings, status. */
    public static function fromEof(string $payload): self
    {
        if (\strlen($payload) < 5) {
            return new self(0, 0, 0, 0);
        }
        /** @var array{1: int, 2: int} $fields */
        $fields = \unpack('v2', $payload, 1);

        return new self(0, 0, $fields[2], $fields[1]);
    }
}
