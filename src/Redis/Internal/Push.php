<?php

declare(strict_types=1);

namespace Bobbin\Redis\Internal;

/**
 * A RESP3 push (`>`): out-of-band data that answers no command (an invalidation, a pub/sub
 * message). It never takes a reply's place in the order of answers.
 *
 * @internal
 */
final class Push
{
    /** @param array<mixed> $items the kind ("invalidate", "message"…) first */
    public function __construct(public readonly array $items)
    {
    }

    public function kind(): string
    {
        $kind = $this->items[0] ?? '';

        return \is_string($kind) ? \strtolower($kind) : '';
    }
}
