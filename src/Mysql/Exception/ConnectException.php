<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Exception;

/** A session could not be opened (refused, unreachable, TLS, protocol). */
class ConnectException extends MysqlException
{
}
