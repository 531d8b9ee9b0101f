<?php

declare(strict_types=1);

namespace Bobbin\Http\Legacy;

/**
 * Not an error: how a legacy-mode worker reaches the global scope. A script written for PHP-FPM
 * must run where its top-level variables are globals (`global $db` in its functions), and only
 * code at the top of bin/bobbin runs there; the worker is started deep inside the master's call
 * stack, so it unwinds to bin/bobbin with this, which runs the loop it carries (finally blocks
 * on the way, such as the master's clean-up, know they are in a worker and do nothing).
 */
final class GlobalScopeHandoffException extends \RuntimeException
{
    public function __construct(public readonly ScriptLoop $loop)
    {
        parent::__construct('Handing the legacy worker over to the global scope');
    }
}
