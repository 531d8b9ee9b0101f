<?php

declare(strict_types=1);

namespace Bobbin\Tarantool\Exception;

use Bobbin\Async\Retryable;

/** Running the transaction again may succeed. */
class RetryableException extends QueryException implements Retryable
{
}
