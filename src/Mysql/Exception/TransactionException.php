<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Exception;

/** A transaction used after its callback, or an isolation level asked for a savepoint. */
final class TransactionException extends MysqlException
{
}
