<?php

declare(strict_types=1);

namespace Bobbin\Postgres\Exception;

/** A transaction was misused (used after it ended) or ended in a state it cannot commit. */
final class TransactionException extends PostgresException
{
}
