<?php

declare(strict_types=1);

namespace Bobbin\Postgres\Exception;

/** A connection could not be opened (wrong host/port, authentication, server down). */
class ConnectException extends PostgresException
{
}
