<?php

declare(strict_types=1);

namespace Bobbin\Async;

/** Sending on a closed channel, or receiving from one that is closed and drained. */
final class ChannelClosedException extends \RuntimeException
{
}
