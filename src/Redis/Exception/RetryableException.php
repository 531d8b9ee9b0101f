<?php

declare(strict_types=1);

namespace Bobbin\Redis\Exception;

use Bobbin\Async\Retryable;

/** Running the whole transaction again may succeed (a WATCHed key changed before EXEC). */
interface RetryableException extends Retryable
{
}
