<?php

declare(strict_types=1);

namespace Bobbin\Async;

/** A wait was abandoned because its cancellation was requested. */
class CancelledException extends \RuntimeException
{
    public function __construct(string $message = 'The operation was cancelled', ?\Throwable $previous = null)
    {
        parent::__construct($message, 0, $previous);
    }
}
