<?php

declare(strict_types=1);

namespace Bobbin\Redis\Exception;

/** A transaction used after its callback, or an EXEC the server refused (EXECABORT): fix the code. */
final class TransactionException extends RedisException
{
}
