<?php

declare(strict_types=1);

namespace Bobbin\Bench;

final class CommandResult
{
    public function __construct(
        public readonly int $exitCode,
        public readonly string $stdout,
        public readonly string $stderr,
        public readonly float $seconds,
    ) {
    }
}
