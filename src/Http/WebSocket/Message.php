<?php

declare(strict_types=1);

namespace Bobbin\Http\WebSocket;

/** A whole message from the client: text (valid UTF-8) or binary. */
final class Message
{
    public function __construct(
        public readonly string $data,
        public readonly bool $binary = false,
    ) {
    }
}
