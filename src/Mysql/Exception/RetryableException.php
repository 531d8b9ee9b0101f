<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Exception;

use Bobbin\Async\Retryable;

/** The whole transaction may succeed when run again (deadlock, lock wait timeout). */
interface RetryableException extends Retryable
{
}
