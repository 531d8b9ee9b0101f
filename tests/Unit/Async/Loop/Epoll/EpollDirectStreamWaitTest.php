<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async\Loop\Epoll;

use Bobbin\Async\Loop\EpollPoller;
use Bobbin\Async\Loop\Poller;
use Bobbin\Tests\Unit\Async\Loop\DirectStreamWaitContract;

/** Bobbin's direct stream waits, on Bobbin's driver polling with epoll (EpollPoller). */
final class EpollDirectStreamWaitTest extends DirectStreamWaitContract
{
    protected static function createPoller(): Poller
    {
        return EpollPoller::create();
    }
}
