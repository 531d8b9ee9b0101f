<?php

declare(strict_types=1);

namespace Bobbin\Postgres;

/**
 * A binary string bound as a bytea parameter. Plain PHP strings are sent as text, which cannot
 * hold NUL bytes; wrapping binary data in this sends it in PostgreSQL's hex form instead.
 */
final class Bytea
{
    public function __construct(public readonly string $bytes)
    {
    }
}
