<?php

declare(strict_types=1);

namespace Bobbin\Tarantool\Exception;

/** Running the transaction again may succeed. */
class RetryableException extends QueryException
{
}
