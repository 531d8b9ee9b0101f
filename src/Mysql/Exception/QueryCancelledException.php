<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Exception;

/** The statement was interrupted on the server (KILL QUERY, max_statement_time). */
class QueryCancelledException extends QueryException
{
}
