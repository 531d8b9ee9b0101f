<?php

declare(strict_types=1);

namespace Bobbin\Ipc;

use Bobbin\Async\ConnectionLost;

/** The connection to the daemon ended while a request waited for its answer. */
final class ConnectionLostException extends IpcException implements ConnectionLost
{
}
