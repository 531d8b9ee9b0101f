<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Exception;

use Bobbin\Async\UniqueViolation;

/** A duplicate key (1062, 1586). */
final class UniqueViolationException extends IntegrityConstraintViolationException implements UniqueViolation
{
}
