<?php

declare(strict_types=1);

namespace Bobbin\Postgres\Exception;

use Bobbin\Async\Timeout;

/** Opening a connection took longer than the connect timeout. */
final class ConnectTimeoutException extends ConnectException implements Timeout
{
}
