<?php

declare(strict_types=1);

namespace Bobbin\Tarantool\Exception;

/** The server refused or failed a request (fix the request or the code); the base of the next ones. */
class QueryException extends TarantoolException
{
}
