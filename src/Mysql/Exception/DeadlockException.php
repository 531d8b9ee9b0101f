<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Exception;

/** InnoDB chose this transaction as a deadlock victim and rolled it back (1213). */
final class DeadlockException extends QueryException implements RetryableException
{
}
