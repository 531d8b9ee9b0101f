<?php

declare(strict_types=1);

namespace Bobbin\Process;

/** The APP_FILE could not be turned into a handler: missing or wrong (a usage error), or it threw. */
final class ApplicationLoadException extends \RuntimeException
{
    public function __construct(string $message, public readonly bool $isUsageError, ?\Throwable $previous = null)
    {
        parent::__construct($message, 0, $previous);
    }
}
