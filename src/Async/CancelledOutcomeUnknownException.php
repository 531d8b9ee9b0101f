<?php

declare(strict_types=1);

namespace Bobbin\Async;

/**
 * A call cancelled after its request left for the server, whose outcome the client cannot tell:
 * the server had no way to stop it (Tarantool runs a request to its end, a NATS responder
 * handles a request it received) and no answer came in time, so it may or may not have taken
 * effect. Both catches keep working: a `catch (CancelledException)` written before sees the
 * cancellation it always saw (the same message; this extends it), and a caller that tells the
 * three outcomes of docs/CLIENTS.md apart catches OutcomeUnknown first and hears "unknown". The
 * cancellation itself (a TimeoutException, a client's request timeout) is getPrevious().
 */
final class CancelledOutcomeUnknownException extends CancelledException implements OutcomeUnknown
{
    /** @param \Throwable $cancellation what ended the wait: a CancelledException, or a client's timeout made of one */
    public function __construct(\Throwable $cancellation)
    {
        parent::__construct($cancellation->getMessage(), $cancellation);
    }
}
