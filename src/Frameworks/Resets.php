<?php

declare(strict_types=1);

namespace Bobbin\Frameworks;

use Closure;

/** Runs a list of resets; each runs even when an earlier one failed, and the first failure is rethrown at the end. */
final class Resets
{
    private function __construct()
    {
    }

    /** @param iterable<Closure(): void> $resets */
    public static function run(iterable $resets): void
    {
        $failure = null;
        foreach ($resets as $reset) {
            try {
                $reset();
            } catch (\Throwable $error) {
                $failure ??= $error;
            }
        }
        if ($failure !== null) {
            throw $failure;
        }
    }
}
