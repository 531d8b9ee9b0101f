<?php

declare(strict_types=1);

namespace Bobbin\Redis\Exception;

/** LOADING, BUSY, MASTERDOWN, TRYAGAIN, OOM, READONLY: the server cannot run the command now; retry later if it is idempotent (503). */
final class ServerBusyException extends CommandException
{
}
