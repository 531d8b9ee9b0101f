<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Exception;

/** The server refused the user, password or database (1044, 1045, 1698), or the user needs TLS the client did not use. */
final class AccessDeniedException extends ConnectException
{
}
