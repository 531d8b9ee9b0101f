<?php

declare(strict_types=1);

namespace Bobbin\Async;

/**
 * Told by BobbinDriver when its loop goes to wait (idle()) and when it comes back to run code
 * (busy()): a watchdog outside the process can then see code that runs too long without
 * yielding. Called twice per loop turn, so it must be a few writes, nothing more.
 */
interface LoopHeartbeat
{
    public function idle(): void;

    /** @param int $since hrtime(true) of the loop's return */
    public function busy(int $since): void;
}
