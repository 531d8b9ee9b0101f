<?php

declare(strict_types=1);

namespace Bobbin\Http\Legacy;

use Bobbin\Async\OutcomeUnknown;

/**
 * A script's process was killed before it answered (past the request's deadline): whatever it
 * had done by then stays done, so the client is told the outcome is unknown (504).
 */
final class ScriptKilledException extends \RuntimeException implements OutcomeUnknown
{
}
