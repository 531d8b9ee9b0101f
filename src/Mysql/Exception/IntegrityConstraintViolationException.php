<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Exception;

/** A constraint rejected the data (NOT NULL, CHECK, a key): tell the user (409/422). */
class IntegrityConstraintViolationException extends QueryException
{
}
