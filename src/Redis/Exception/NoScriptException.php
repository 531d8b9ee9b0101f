<?php

declare(strict_types=1);

namespace Bobbin\Redis\Exception;

/** NOSCRIPT: the server does not know the script's SHA1 (EVALSHA); evalScript() falls back to EVAL by itself. */
final class NoScriptException extends CommandException
{
}
