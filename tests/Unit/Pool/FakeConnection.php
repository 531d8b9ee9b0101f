<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Pool;

/** A connection as the pool sees it: only the state its connector reports. */
final class FakeConnection
{
    public bool $alive = true;
    public bool $closed = false;
    public bool $pingSucceeds = true;
    public int $pings = 0;
    /** false: broken on return; a future: needs cleaning first; null: reusable */
    public mixed $onReturn = null;
    public float $openedAt;
    public float $lastUsedAt;

    public function __construct(public readonly int $id)
    {
        $this->openedAt = $this->lastUsedAt = \microtime(true);
    }
}
