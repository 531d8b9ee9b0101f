<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Exception;

use Bobbin\Async\ConnectionLost;

/** The socket broke or the server went away before the answer was complete: the statement may or may not have run. */
final class ConnectionLostException extends MysqlException implements ConnectionLost
{
}
