<?php

declare(strict_types=1);

namespace Bobbin\Async;

/**
 * A bound the caller or the configuration set ran out: connecting, a query or request's answer,
 * a pool checkout (PoolTimeout), a job's time limit, a plain wait's deadline
 * (TimeoutException). Not the server's own time limits that it reports as errors (a MySQL lock
 * wait timeout is Retryable). Whether the work ran depends on the class: a query timeout the
 * server confirmed did not; one it did not confirm is an OutcomeUnknown instead
 * (docs/CLIENTS.md section 4).
 */
interface Timeout extends \Throwable
{
}
