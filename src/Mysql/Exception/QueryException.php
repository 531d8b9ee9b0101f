<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Exception;

/** A statement failed on the server (syntax, unknown column, wrong value…): fix the query or the code. */
class QueryException extends MysqlException
{
}
