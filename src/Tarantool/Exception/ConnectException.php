<?php

declare(strict_types=1);

namespace Bobbin\Tarantool\Exception;

/** No session could be opened (refused, unreachable, not a Tarantool server). */
class ConnectException extends TarantoolException
{
}
