<?php

declare(strict_types=1);

namespace Bobbin\Postgres\Exception;

use Bobbin\Async\Timeout;

/** The statement ran longer than its per-query timeout and was cancelled on the server. */
final class QueryTimeoutException extends QueryCancelledException implements Timeout
{
}
