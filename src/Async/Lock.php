<?php

declare(strict_types=1);

namespace Bobbin\Async;

use Closure;

/** One permit of a Semaphore (or the hold of a Mutex); release() gives it back, once. */
final class Lock
{
    private ?Closure $release;

    /** @param Closure(): void $release */
    public function __construct(Closure $release)
    {
        $this->release = $release;
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
