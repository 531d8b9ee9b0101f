<?php

declare(strict_types=1);

namespace Bobbin\Tarantool;

/**
 * An SQL statement prepared on the server (IPROTO_PREPARE), run by its id with execute(). Its
 * id belongs to the session that prepared it: after a reconnect the client prepares it again.
 */
final class PreparedStatement
{
    /**
     * @param list<array{name: string, type: string}> $parameters
     * @param list<array{name: string, type: string}> $columns
     */
    public function __construct(
        public readonly string $sql,
        public readonly int $id,
        public readonly array $parameters,
        public readonly array $columns,
    ) {
    }
}
