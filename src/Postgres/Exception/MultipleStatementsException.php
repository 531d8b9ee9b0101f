<?php

declare(strict_types=1);

namespace Bobbin\Postgres\Exception;

/** A query string held more than one statement; send them one by one (or in a transaction). */
final class MultipleStatementsException extends QueryException
{
}
