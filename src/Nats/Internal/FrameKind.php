<?php

declare(strict_types=1);

namespace Bobbin\Nats\Internal;

/** @internal what the server sent, besides messages */
enum FrameKind
{
    case Info;
    case Ping;
    case Pong;
    case Ok;
    case Err;
}
