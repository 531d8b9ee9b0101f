<?php

declare(strict_types=1);

namespace Bobbin\Http;

/**
 * A request the server refuses to interpret; the connection answers with $status and closes,
 * because after a framing error nothing later on the connection can be trusted.
 *
 * @internal thrown by RequestParser, answered by the server with its 4xx
 */
final class ProtocolException extends \RuntimeException
{
    public function __construct(public readonly int $status, string $message)
    {
        parent::__construct($message);
    }
}
