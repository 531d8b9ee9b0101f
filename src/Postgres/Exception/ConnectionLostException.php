<?php

declare(strict_types=1);

namespace Bobbin\Postgres\Exception;

use Bobbin\Async\ConnectionLost;

/** The connection broke (server restart, terminated backend, network): the statement may or may not have run. */
final class ConnectionLostException extends PostgresException implements ConnectionLost
{
}
