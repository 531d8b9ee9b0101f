<?php

declare(strict_types=1);

namespace Bobbin\Async;

/**
 * What a client throws when an operation was sent and its answer never came: it may or may not
 * have taken effect (a connection lost in the middle, a cancelled statement whose cancellation
 * the server did not confirm in time). The third outcome beside done (a result) and not done (an
 * error the server gave, a cancellation it confirmed): a caller must not retry a write blindly
 * on it, nor tell its own client "failed, try again" — look the effect up, or say it is unknown
 * (the HTTP server answers such an exception with 504 and `"outcome":"unknown"`; docs/CLIENTS.md).
 */
interface OutcomeUnknown extends \Throwable
{
}
