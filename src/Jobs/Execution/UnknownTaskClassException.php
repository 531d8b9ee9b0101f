<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Execution;

/** Raised in a job worker for a task whose class it cannot load; the caller gets it as a TaskFailedException. */
final class UnknownTaskClassException extends \RuntimeException
{
}
