<?php

declare(strict_types=1);

namespace Bobbin\Nats;

enum ConnectionState
{
    case Connected;
    /** The connection broke; publishes are buffered and subscriptions come back once it is up again. */
    case Reconnecting;
    /** close() was called, or reconnecting gave up: nothing more works on it. */
    case Closed;
}
