<?php

declare(strict_types=1);

namespace Bobbin\Async;

use Closure;

/**
 * One permit of a Semaphore (or the hold of a Mutex); release() gives it back, once. A lock
 * that is dropped unreleased (its fiber died, or a permit was handed to a waiter that is gone)
 * gives the permit back when it is destroyed, so a permit is never lost for good; still release
 * explicitly (or use synchronized()) so the permit is free at a known time.
 */
final class Lock
{
    private ?Closure $release;

    /** @param Closure(): void $release */
    public function __construct(Closure $release)
    {
        $this->release = $release;
    }

    public function __destruct()
    {
        $this->release();
    }

    public function release(): void
    {
        $release = $this->release;
        $this->release = null;
        if ($release !== null) {
            $release();
        }
    }

    public function isReleased(): bool
    {
        return $this->release === null;
    }
}
