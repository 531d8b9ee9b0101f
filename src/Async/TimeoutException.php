<?php

declare(strict_types=1);

namespace Bobbin\Async;

/** A wait was abandoned because its deadline passed. */
final class TimeoutException extends CancelledException implements Timeout
{
    public function __construct(string $message = 'The operation timed out', ?\Throwable $previous = null)
    {
        parent::__construct($message, $previous);
    }
}
