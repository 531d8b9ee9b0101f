<?php

declare(strict_types=1);

namespace Bobbin\Async;

/**
 * No pooled connection became free within the pool's acquire timeout, or too many callers
 * already waited: nothing was sent, so trying again later is safe (503). A Timeout too.
 */
interface PoolTimeout extends Timeout
{
}
