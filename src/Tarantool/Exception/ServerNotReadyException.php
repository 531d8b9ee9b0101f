<?php

declare(strict_types=1);

namespace Bobbin\Tarantool\Exception;

/**
 * The server is still starting (bootstrap, recovery, joining its replica set) and refused the
 * login for now: transient, connect again shortly. Not an AccessDeniedException: the settings
 * are not at fault.
 */
final class ServerNotReadyException extends ConnectException
{
}
