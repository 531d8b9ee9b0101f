<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Exception;

/** More than one statement in one query string, without allowMultipleStatements: send them one at a time. */
final class MultipleStatementsException extends QueryException
{
}
