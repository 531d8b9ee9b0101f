<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Execution;

/** Raised in a job worker for a result that cannot travel back; the caller gets it as a TaskFailedException. */
final class ResultNotSerializableException extends \RuntimeException
{
}
