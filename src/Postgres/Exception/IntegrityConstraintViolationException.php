<?php

declare(strict_types=1);

namespace Bobbin\Postgres\Exception;

/** SQLSTATE class 23: a constraint rejected the data. */
class IntegrityConstraintViolationException extends QueryException
{
}
