<?php

declare(strict_types=1);

namespace Bobbin\Ipc;

use Bobbin\Async\Timeout;

/** The daemon did not accept the connection (or finish the shared-memory handshake) within the connect timeout. */
final class ConnectTimeoutException extends IpcException implements Timeout
{
}
