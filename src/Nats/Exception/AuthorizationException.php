<?php

declare(strict_types=1);

namespace Bobbin\Nats\Exception;

/** The server refused the credentials (user/password or token): fix the configuration. */
final class AuthorizationException extends ConnectException
{
}
