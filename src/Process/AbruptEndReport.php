<?php

declare(strict_types=1);

namespace Bobbin\Process;

use Bobbin\Http\Server;

/**
 * Makes the end of a serving process explain itself: a shutdown function that lets the server
 * name (and answer) the requests in flight when exit(), die or a fatal error ends the process
 * in the middle of them (Server::reportAbruptEnd()). Its first act raises memory_limit
 * (MemoryHeadroom), so the report still works when the fatal error was an exhausted memory_limit.
 */
final class AbruptEndReport
{
    private function __construct()
    {
    }

    /** @param (\Closure(): void)|null $then runs after the report, with the headroom given (a worker's last word to its master) */
    public static function register(Server $server, ?\Closure $then = null): void
    {
        $headroom = MemoryHeadroom::forLastWords();
        ProcessShutdown::register(static function () use ($server, $headroom, $then): void {
            $headroom();
            $server->reportAbruptEnd();
            $then?->__invoke();
        });
    }
}
