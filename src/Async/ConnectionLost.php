<?php

declare(strict_types=1);

namespace Bobbin\Async;

/**
 * A client's connection broke while an operation was in flight (every client's
 * ConnectionLostException). Always an OutcomeUnknown: what was sent may or may not have taken
 * effect. Catch this one to reconnect or report the server gone; catch OutcomeUnknown to decide
 * about the effect (docs/CLIENTS.md section 4).
 */
interface ConnectionLost extends OutcomeUnknown
{
}
