<?php

declare(strict_types=1);

namespace Bobbin\Tarantool\Exception;

/** The user, its password or its privileges were refused: fix the settings. */
final class AccessDeniedException extends TarantoolException
{
}
