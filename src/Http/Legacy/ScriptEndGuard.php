<?php

declare(strict_types=1);

namespace Bobbin\Http\Legacy;

use Closure;

/**
 * Lives in a script process's globals: when PHP destroys them at shutdown — which it does only
 * when the shutdown functions were cut short, since the last of them ends the process — it
 * ends the process with the script's response all the same (ScriptProcessEnd).
 *
 * @internal
 */
final class ScriptEndGuard
{
    /** @param Closure(): never $end */
    public function __construct(private readonly Closure $end)
    {
    }

    public function __destruct()
    {
        ($this->end)();
    }
}
