<?php

declare(strict_types=1);

namespace Bobbin\Redis\Exception;

/** A WATCHed key changed before EXEC: nothing queued ran. Run the transaction again. */
final class TransactionConflictException extends RedisException implements RetryableException
{
}
