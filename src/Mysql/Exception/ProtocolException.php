<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Exception;

/** The server sent something the protocol does not allow there; the connection is closed. */
final class ProtocolException extends MysqlException
{
}
