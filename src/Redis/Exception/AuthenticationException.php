<?php

declare(strict_types=1);

namespace Bobbin\Redis\Exception;

/** The server refused the user or password (WRONGPASS, NOAUTH): fix the settings. */
final class AuthenticationException extends ConnectException
{
}
