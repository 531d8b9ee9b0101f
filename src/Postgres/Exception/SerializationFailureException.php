<?php

declare(strict_types=1);

namespace Bobbin\Postgres\Exception;

/** SQLSTATE 40001: the transaction conflicted with a concurrent one; run the whole transaction again. */
final class SerializationFailureException extends QueryException implements RetryableException
{
}
