<?php

declare(strict_types=1);

namespace Bobbin\Process\Admin;

/**
 * /health and /ready for load balancers and orchestrators (issue 38), from the master's own
 * record: no worker is asked, so both answer within the master's turn even when every worker
 * is busy.
 *
 *   /health  200 whenever the master answers: the process is alive (a draining server is alive;
 *            an orchestrator must not kill it for being slow to stop)
 *   /ready   200 while the server runs with at least one worker ready to take a connection;
 *            503 while it starts, stops, or has no ready worker (all crashed, being replaced)
 *
 * Bodies are one line of plain text and say no more than the worker counts: these two paths
 * answer without the admin token (AdminService), for probes that cannot send one.
 */
final class Readiness
{
    private function __construct()
    {
    }

    /** @return array{int, string} status and body */
    public static function health(): array
    {
        return [200, "ok\n"];
    }

    /**
     * @param array<string, mixed> $master the master's record (Master::describe(): phase, workers)
     * @param list<array<string, mixed>> $workers one entry per worker process (state)
     * @return array{int, string} status and body
     */
    public static function ready(array $master, array $workers): array
    {
        $wanted = (int) ($master['workers'] ?? 0);
        $ready = 0;
        foreach ($workers as $worker) {
            // A retiring worker still accepts until its replacement is ready.
            if (\in_array($worker['state'] ?? null, ['ready', 'retiring'], true)) {
                $ready++;
            }
        }
        $phase = (string) ($master['phase'] ?? 'unknown');
        $counts = \sprintf('%d of %d workers', $ready, $wanted);
        if ($phase !== 'running') {
            return [503, \sprintf("not ready: %s, %s ready\n", $phase, $counts)];
        }
        if ($ready === 0) {
            return [503, \sprintf("not ready: %s ready\n", $counts)];
        }

        return [200, \sprintf("ready: %s\n", $counts)];
    }
}
