<?php

declare(strict_types=1);

namespace Bobbin\Async;

/**
 * The server failed a transaction because of concurrent ones (serialization failure, deadlock,
 * lock wait timeout, a conflicting transaction, a WATCHed key that changed): roll it back (the
 * transaction callback does) and run the whole transaction again, which may succeed. Retrying
 * is the caller's choice, never the client's (docs/CLIENTS.md section 4).
 */
interface Retryable extends \Throwable
{
}
