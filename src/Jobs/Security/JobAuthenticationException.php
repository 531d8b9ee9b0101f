<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Security;

use Bobbin\Jobs\JobException;

/** A job message failed authentication and was refused before any byte of it was decoded. */
final class JobAuthenticationException extends JobException
{
    public function __construct(public readonly RefusalReason $reason, string $message)
    {
        parent::__construct($message);
    }
}
