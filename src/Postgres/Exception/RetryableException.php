<?php

declare(strict_types=1);

namespace Bobbin\Postgres\Exception;

use Bobbin\Async\Retryable;

/** The whole transaction may succeed when run again (serialization failure, deadlock). */
interface RetryableException extends Retryable
{
}
