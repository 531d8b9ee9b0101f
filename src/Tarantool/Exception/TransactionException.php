<?php

declare(strict_types=1);

namespace Bobbin\Tarantool\Exception;

/** A transaction used after its callback returned: fix the code. */
final class TransactionException extends TarantoolException
{
}
