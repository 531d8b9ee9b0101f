<?php

declare(strict_types=1);

namespace Bobbin\Postgres\Exception;

/** The server rejected a statement (SQL error, constraint, permission...). */
class QueryException extends PostgresException
{
}
