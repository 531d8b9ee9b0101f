<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Exception;

use Bobbin\Async\Timeout;

/** The statement ran past the connection's queryTimeout and was killed on the server. */
final class QueryTimeoutException extends QueryCancelledException implements Timeout
{
}
