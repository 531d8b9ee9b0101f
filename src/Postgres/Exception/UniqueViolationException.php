<?php

declare(strict_types=1);

namespace Bobbin\Postgres\Exception;

use Bobbin\Async\UniqueViolation;

/** SQLSTATE 23505: a unique or primary key constraint was violated; constraint() names it. */
final class UniqueViolationException extends IntegrityConstraintViolationException implements UniqueViolation
{
}
