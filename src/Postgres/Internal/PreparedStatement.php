<?php

declare(strict_types=1);

namespace Bobbin\Postgres\Internal;

/**
 * A statement prepared on the session under a name of the connection's, with how its result
 * columns are converted, learnt from its first result.
 *
 * @internal
 */
final class PreparedStatement
{
    /** @var array<string, int>|null column name => ValueConverter kind, null until the first result */
    public ?array $kinds = null;

    public function __construct(public readonly string $name)
    {
    }
}
