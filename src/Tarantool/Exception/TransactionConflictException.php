<?php

declare(strict_types=1);

namespace Bobbin\Tarantool\Exception;

/** A concurrent transaction changed what this one read or wrote (ER_TRANSACTION_CONFLICT). */
final class TransactionConflictException extends RetryableException
{
}
