<?php

declare(strict_types=1);

namespace Bobbin\Postgres\Exception;

/** SQLSTATE 57014: the statement was cancelled on the server (by its timeout or by another session). */
class QueryCancelledException extends QueryException
{
}
