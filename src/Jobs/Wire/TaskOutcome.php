<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Wire;

use Bobbin\Jobs\RemoteError;

/** How a task ended in its worker: a serialized result, or the exception it threw; and how long it ran. */
final readonly class TaskOutcome
{
    private function __construct(
        public ?string $result,
        public ?RemoteError $error,
        public float $runSeconds,
    ) {
    }

    public static function success(string $serializedResult, float $runSeconds): self
    {
        return new self($serializedResult, null, $runSeconds);
    }

    public static function failure(RemoteError $error, float $runSeconds): self
    {
        return new self(null, $error, $runSeconds);
    }
}
