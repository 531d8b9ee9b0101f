<?php

declare(strict_types=1);

namespace Bobbin\Tarantool\Exception;

/** The connection broke before the answer came: the request may or may not have run. */
final class ConnectionLostException extends TarantoolException
{
}
