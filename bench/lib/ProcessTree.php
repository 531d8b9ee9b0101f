<?php

declare(strict_types=1);

namespace Bobbin\Bench;

/** Reads CPU time and memory of a set of processes and all their descendants from /proc. */
final class ProcessTree
{
    /** x86-64 base pages; pagemap has one entry per page. */
    private const PAGE_SIZE = 4096;
    private const FRAME_MASK = (1 << 55) - 1;

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
     * utime + stime in clock ticks, per process, with those of its ended and reaped children.
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
     * User and system time of one process itself, in clock ticks (a single server process
     * measured over a window; cpuTicks() also counts reaped children).
     *
     * @return array{int, int}
     */
    public static function ownTicks(int $pid): array
    {
        $line = (string) @\file_get_contents("/proc/$pid/stat");
        $fields = \explode(' ', \substr($line, (int) \strrpos($line, ')') + 2));

        return [(int) ($fields[11] ?? 0), (int) ($fields[12] ?? 0)];
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

    /**
     * Memory the processes occupy together, in kB: every physical page mapped by any of them
     * counted once, however many processes map it (in the set or outside it). That is what the
     * server would take on a machine running nothing else. The sum of PSS is not: it splits a
     * shared page among every process mapping it, so a server sharing its binary and libraries
     * with an unrelated process (this harness is a php8.2 process, as Bobbin is) looks smaller.
     * Reads /proc/PID/pagemap, whose frame numbers only root sees; null without them.
     *
     * @param list<int> $pids
     */
    public static function residentKb(array $pids): ?int
    {
        $frames = [];
        foreach ($pids as $pid) {
            $smaps = @\file_get_contents("/proc/$pid/smaps");
            $pagemap = @\fopen("/proc/$pid/pagemap", 'rb');
            if ($smaps === false || $pagemap === false) {
                continue; // the process has gone meanwhile
            }
            // Only mappings with resident pages are read: opcache's and the JIT's reserved
            // ranges are mostly untouched.
            \preg_match_all('~^([0-9a-f]+)-([0-9a-f]+) .*\n(?:(?:[A-Z][\w]*:).*\n)*?Rss:\s+(\d+) kB~m', $smaps, $vmas, \PREG_SET_ORDER);
            foreach ($vmas as [, $from, $to, $rss]) {
                if ($rss === '0') {
                    continue;
                }
                $first = \intdiv((int) \hexdec($from), self::PAGE_SIZE);
                $count = \intdiv((int) \hexdec($to), self::PAGE_SIZE) - $first;
                if ($count < 1 || \fseek($pagemap, $first * 8) !== 0) {
                    continue; // [vsyscall] lies beyond what pagemap can seek to
                }
                $entries = \fread($pagemap, $count * 8);
                if ($entries === false || \strlen($entries) !== $count * 8) {
                    continue;
                }
                foreach (\unpack('P*', $entries) ?: [] as $entry) {
                    // Bit 63: present in RAM (unpack() gives it as the sign); bits 0-54: the frame.
                    if ($entry < 0) {
                        $frames[$entry & self::FRAME_MASK] = true;
                    }
                }
            }
            \fclose($pagemap);
        }
        if ($frames !== [] && \array_keys($frames) === [0]) {
            return null; // frame numbers hidden (not root): every present page reads as frame 0
        }

        return \intdiv(\count($frames) * self::PAGE_SIZE, 1024);
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
        // After the name: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14). The
        // children's times are those of children that ended and were reaped: a process per
        // request (--legacy, a worker the master replaced) spends its CPU there, gone from /proc
        // by the end of the window.
        return [
            'pid' => (int) \substr($line, 0, (int) \strpos($line, ' ')),
            'ppid' => (int) $fields[1],
            'ticks' => (int) $fields[11] + (int) $fields[12] + (int) $fields[13] + (int) $fields[14],
        ];
    }
}
