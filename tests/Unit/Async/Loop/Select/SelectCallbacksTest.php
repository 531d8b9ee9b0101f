<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async\Loop\Select;

use Bobbin\Async\Loop\Poller;
use Bobbin\Async\Loop\SelectPoller;
use Bobbin\Tests\Unit\Async\Loop\CallbacksContract;

/** Revolt's callback contract, on Bobbin's driver polling with stream_select() (SelectPoller). */
final class SelectCallbacksTest extends CallbacksContract
{
    protected static function createPoller(): Poller
    {
        return new SelectPoller();
    }
}
