<?php

declare(strict_types=1);

namespace Bobbin\Async;

/**
 * The connect itself failed: refused, unreachable, a name that does not resolve, no socket at a
 * unix path. Nothing was sent, so nothing took effect; trying again later may succeed. The
 * message is the system's reason; $errno its number when the system gave one (0 otherwise).
 */
final class ConnectFailedException extends \RuntimeException
{
    public function __construct(string $reason, public readonly int $errno = 0)
    {
        parent::__construct($reason);
    }
}
