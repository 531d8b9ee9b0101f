<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async\Loop\Select;

use Bobbin\Async\Loop\SelectPoller;
use Bobbin\Async\Loop\Poller;
use Bobbin\Tests\Unit\Async\Loop\CallbackFiberReuseContract;

/** Spare callback fibers, on Bobbin's driver polling with SelectPoller. */
final class SelectCallbackFiberReuseTest extends CallbackFiberReuseContract
{
    protected static function createPoller(): Poller
    {
        return new SelectPoller();
    }
}
