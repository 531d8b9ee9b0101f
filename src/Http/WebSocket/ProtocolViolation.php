<?php

declare(strict_types=1);

namespace Bobbin\Http\WebSocket;

/**
 * The peer broke RFC 6455: the connection is closed with $code (1002, 1007, 1009).
 *
 * @internal
 */
final class ProtocolViolation extends \RuntimeException
{
    public function __construct(public readonly int $closeCode, string $message)
    {
        parent::__construct($message);
    }
}
