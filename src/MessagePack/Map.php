<?php

declare(strict_types=1);

namespace Bobbin\MessagePack;

/**
 * A PHP array to be sent as a MessagePack map even when its keys are 0, 1, 2… (an empty
 * map, a map of consecutive integer keys), which would otherwise go out as an array.
 */
final class Map
{
    /** @param array<int|string, mixed> $entries */
    public function __construct(public readonly array $entries)
    {
    }
}
