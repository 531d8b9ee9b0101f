<?php

declare(strict_types=1);

namespace Bobbin\MessagePack;

/**
 * A PHP string to be sent as MessagePack bin rather than str: PHP strings carry no such
 * difference, and Tarantool keeps them apart (varbinary vs string fields).
 */
final class Binary
{
    public function __construct(public readonly string $bytes)
    {
    }
}
