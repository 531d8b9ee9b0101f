<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Internal;

/**
 * A statement prepared on one session: its id there, how many parameters it takes, and the
 * columns of its result as the server last described them (which MariaDB's metadata cache then
 * leaves out).
 *
 * @internal
 */
final class PreparedStatement
{
    /** @param list<ColumnDefinition> $columns */
    public function __construct(
        public readonly int $id,
        public readonly int $parameterCount,
        public array $columns,
    ) {
    }
}
