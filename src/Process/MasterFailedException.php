<?php

declare(strict_types=1);

namespace Bobbin\Process;

/**
 * The master gave up (a worker failed to boot at start, a crash loop, the address is taken);
 * every worker has been stopped by the time this is thrown. $exitCode 2 marks a usage error
 * (an APP_FILE that returns no handler), 1 a runtime failure.
 */
final class MasterFailedException extends \RuntimeException
{
    public function __construct(string $message, public readonly int $exitCode = 1)
    {
        parent::__construct($message);
    }
}
