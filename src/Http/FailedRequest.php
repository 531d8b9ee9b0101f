<?php

declare(strict_types=1);

namespace Bobbin\Http;

use Bobbin\Async\CancelledException;
use Bobbin\Async\OutcomeUnknown;
use Throwable;

/**
 * The status the server answers when the application did not: a client is told what happened,
 * not only that something failed (docs/HTTP.md, "Three outcomes"). Pure.
 *
 * - 504, outcome unknown: the application threw an OutcomeUnknown (a statement was sent and its
 *   answer never came), or it was still running when the request's deadline and the settle time
 *   after it had passed. It may or may not have taken effect: look before retrying.
 * - 503 with Retry-After: the request's deadline cancelled it and the cancellation ended it (a
 *   statement the server confirmed cancelled). Nothing happened; trying again is safe.
 * - 500: any other exception.
 *
 * @internal used by Connection (the statuses are documented in docs/HTTP.md)
 */
final class FailedRequest
{
    /** How long a request past its deadline has, once cancelled, to end and say what it did. */
    public const SETTLE_SECONDS = 1.5;

    private function __construct()
    {
    }

    public static function statusFor(Throwable $error, bool $pastDeadline): int
    {
        for ($cause = $error; $cause !== null; $cause = $cause->getPrevious()) {
            if ($cause instanceof OutcomeUnknown) {
                return 504;
            }
        }

        return $pastDeadline && $error instanceof CancelledException ? 503 : 500;
    }
}
