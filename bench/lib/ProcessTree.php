<?php

declare(strict_types=1);

namespace Bobbin\Bench;

/** Reads CPU time and memory of a set of processes and all their descendants from /proc. */
final class ProcessTree
{
    /**
     * @param list<int> $roots
     * @return list<int> the roots that are alive and every descendant of them
     */
    public static function expand(array $roots): array
    {
        $children = [];
        foreach (\glob('/proc/[0-9]*/stat') ?: [] as $file) {
            $stat = self::stat($file);
            if ($stat !== null) {
                $children[$stat['ppid']][] = $stat['pid'];
            }
        }
        $seen = [];
        $queue = \array_values(\array_filter($roots, static fn (int $p): bool => \is_dir("/proc/$p")));
        while ($queue !== []) {
            $pid = \array_shift($queue);
            if (isset($seen[$pid])) {
                continue;
            }
            $seen[$pid] = true;
            foreach ($children[$pid] ?? [] as $child) {
                $queue[] = $child;
            }
        }

        return \array_keys($seen);
    }

    /**
     * utime + stime in clock ticks, per process.
     *
     * @param list<int> $pids
     * @return array<int, int>
     */
    public static function cpuTicks(array $pids): array
    {
        $ticks = [];
        foreach ($pids as $pid) {
            $stat = self::stat("/proc/$pid/stat");
            if ($stat !== null) {
                $ticks[$pid] = $stat['ticks'];
            }
        }

        return $ticks;
    }

    /**
     * Sum of proportional set sizes in kB.
     *
     * @param list<int> $pids
     */
    public static function pssKb(array $pids): int
    {
        $total = 0;
        foreach ($pids as $pid) {
            $rollup = @\file_get_contents("/proc/$pid/smaps_rollup");
            if ($rollup !== false && \preg_match('~^Pss:\s+(\d+) kB~m', $rollup, $m)) {
                $total += (int) $m[1];
            }
        }

        return $total;
    }

    public static function ticksPerSecond(): int
    {
        $hz = \trim((string) @\shell_exec('getconf CLK_TCK 2>/dev/null'));

        return \ctype_digit($hz) && (int) $hz > 0 ? (int) $hz : 100;
    }

    /** @return array{pid: int, ppid: int, ticks: int}|null */
    private static function stat(string $file): ?array
    {
        $line = @\file_get_contents($file);
        if ($line === false) {
            return null;
        }
        // The command name may hold spaces and parentheses: fields start after the last ')'.
        $close = \strrpos($line, ')');
        if ($close === false) {
            return null;
        }
        $fields = \explode(' ', \substr($line, $close + 2));
        // After the name: state(0) ppid(1) ... utime(11) stime(12).
        return [
            'pid' => (int) \substr($line, 0, (int) \strpos($line, ' ')),
            'ppid' => (int) $fields[1],
            'ticks' => (int) $fields[11] + (int) $fields[12],
        ];
    }
}
