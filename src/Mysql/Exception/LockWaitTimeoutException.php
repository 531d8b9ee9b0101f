<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Exception;

/**
 * A row lock was not granted within innodb_lock_wait_timeout (1205). Only the statement was
 * rolled back, unless innodb_rollback_on_timeout is on: roll back and run the transaction again.
 */
final class LockWaitTimeoutException extends QueryException implements RetryableException
{
}
