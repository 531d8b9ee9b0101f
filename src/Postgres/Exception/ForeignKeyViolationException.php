<?php

declare(strict_types=1);

namespace Bobbin\Postgres\Exception;

/** SQLSTATE 23503: a foreign key constraint was violated; constraint() names it. */
final class ForeignKeyViolationException extends IntegrityConstraintViolationException
{
}
