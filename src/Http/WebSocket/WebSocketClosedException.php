<?php

declare(strict_types=1);

namespace Bobbin\Http\WebSocket;

/** A send on a WebSocket that is closing or closed. */
final class WebSocketClosedException extends \RuntimeException
{
}
