<?php

declare(strict_types=1);

namespace Bobbin\Async;

/** The stream a fiber was waiting on was closed by someone else. */
final class StreamClosedException extends \RuntimeException
{
}
