<?php

declare(strict_types=1);

namespace Bobbin\Bench\Load;

use Bobbin\Bench\ProcessTree;
use Bobbin\Bench\Server\Server;
use Bobbin\Bench\Shell;

/**
 * Runs a load generator to completion while watching the server: CPU time (utime + stime of
 * every server process, before and after), peak memory (sum of PSS, sampled every 200 ms) and the
 * memory the server's processes occupy together at the end of the window (each page once: a PHP
 * server keeps what it allocated, so the end is its peak; one read, not a sampling loop, because
 * reading every page table costs more CPU than smaps_rollup on the core the database uses).
 */
final class Meter
{
    private const SAMPLE_INTERVAL_MICROS = 200_000;

    public function __construct(private readonly int $ticksPerSecond)
    {
    }

    /** @param list<string> $command */
    public function run(?Server $server, array $command, float $timeout): Metered
    {
        $pids = $server === null ? [] : ProcessTree::expand($server->rootPids());
        $before = ProcessTree::cpuTicks($pids);
        $cpusBefore = self::perCpuTicks();
        $peak = $pids === [] ? 0 : ProcessTree::pssKb($pids);
        $childrenBefore = self::childrenCpuSeconds();
        $load = Shell::start($command);
        $deadline = \microtime(true) + $timeout;
        while ($load->isRunning() && \microtime(true) < $deadline) {
            $load->runFor(self::SAMPLE_INTERVAL_MICROS / 1e6);
            if ($server !== null) {
                // Re-read the tree: FPM or a master may have replaced a child meanwhile.
                $pids = ProcessTree::expand($server->rootPids());
                $peak = \max($peak, ProcessTree::pssKb($pids));
            }
        }
        $result = $load->wait(\max(0.0, $deadline - \microtime(true)));
        $resident = $server === null ? null : ProcessTree::residentKb(ProcessTree::expand($server->rootPids()));
        // The load generator is a reaped child by now (taskset execs it): its CPU time is in
        // this process's children's usage.
        $loadCpu = self::childrenCpuSeconds() - $childrenBefore;
        $cpuBusy = [];
        foreach (self::perCpuTicks() as $cpu => [$total, $idle]) {
            $spent = $total - ($cpusBefore[$cpu][0] ?? 0);
            $cpuBusy[$cpu] = $spent > 0 ? 1.0 - ($idle - ($cpusBefore[$cpu][1] ?? 0)) / $spent : 0.0;
        }

        return new Metered(
            $result,
            self::delta($before, ProcessTree::cpuTicks($pids)) / $this->ticksPerSecond,
            $peak,
            $loadCpu,
            $cpuBusy,
            $resident,
        );
    }

    /**
     * Per CPU: all ticks and idle + iowait ticks so far, from /proc/stat. Short-lived processes
     * (a backend per FPM request) are counted here even though they are gone when the run ends.
     *
     * @return array<int, array{int, int}>
     */
    private static function perCpuTicks(): array
    {
        $ticks = [];
        \preg_match_all('~^cpu(\d+)\s+(.*)$~m', (string) \file_get_contents('/proc/stat'), $lines, \PREG_SET_ORDER);
        foreach ($lines as $line) {
            $fields = \array_map('intval', \array_slice(\preg_split('~\s+~', \trim($line[2])) ?: [], 0, 8));
            $ticks[(int) $line[1]] = [\array_sum($fields), ($fields[3] ?? 0) + ($fields[4] ?? 0)];
        }

        return $ticks;
    }

    private static function childrenCpuSeconds(): float
    {
        $usage = \getrusage(1);

        return ($usage['ru_utime.tv_sec'] ?? 0) + ($usage['ru_utime.tv_usec'] ?? 0) / 1e6
            + ($usage['ru_stime.tv_sec'] ?? 0) + ($usage['ru_stime.tv_usec'] ?? 0) / 1e6;
    }

    /**
     * Ticks spent between two readings; a process born in between counts from zero, one that
     * ended in between counts through its parent's children's time, less what it had spent
     * before the first reading.
     *
     * @param array<int, int> $before
     * @param array<int, int> $after
     */
    private static function delta(array $before, array $after): int
    {
        $ticks = 0;
        foreach ($after as $pid => $now) {
            $ticks += $now - ($before[$pid] ?? 0);
        }
        foreach ($before as $pid => $then) {
            if (!isset($after[$pid])) {
                // Ended in the window: its whole time is in its parent's children's time now
                // (ProcessTree::cpuTicks()); what it had spent before the window is not the window's.
                $ticks -= $then;
            }
        }

        return $ticks;
    }
}
