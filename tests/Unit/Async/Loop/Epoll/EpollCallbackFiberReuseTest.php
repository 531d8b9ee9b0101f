<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async\Loop\Epoll;

use Bobbin\Async\Loop\EpollPoller;
use Bobbin\Async\Loop\Poller;
use Bobbin\Tests\Unit\Async\Loop\CallbackFiberReuseContract;

/** Spare callback fibers, on Bobbin's driver polling with EpollPoller. */
final class EpollCallbackFiberReuseTest extends CallbackFiberReuseContract
{
    protected static function createPoller(): Poller
    {
        return EpollPoller::create();
    }
}
