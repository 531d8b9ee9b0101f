<?php

declare(strict_types=1);

namespace Bobbin\Tarantool\Exception;

use Bobbin\Async\UniqueViolation;

/** A tuple with the same unique key exists (ER_TUPLE_FOUND): tell the user (409). */
final class UniqueViolationException extends QueryException implements UniqueViolation
{
}
