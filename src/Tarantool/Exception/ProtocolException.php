<?php

declare(strict_types=1);

namespace Bobbin\Tarantool\Exception;

/** The server sent what the protocol does not allow there. */
final class ProtocolException extends TarantoolException
{
}
