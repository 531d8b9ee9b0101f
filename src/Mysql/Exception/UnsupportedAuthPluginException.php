<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Exception;

/** The server asked for an authentication plugin this client does not speak. */
final class UnsupportedAuthPluginException extends ConnectException
{
}
