<?php

declare(strict_types=1);

namespace Bobbin\Postgres\Exception;

/** SQLSTATE 40P01: the transaction was chosen as a deadlock victim; run the whole transaction again. */
final class DeadlockException extends QueryException implements RetryableException
{
}
