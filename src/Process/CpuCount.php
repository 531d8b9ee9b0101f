<?php

declare(strict_types=1);

namespace Bobbin\Process;

/** How many processors this process may run on: the default number of workers. */
final class CpuCount
{
    public static function detect(): int
    {
        $affinity = self::fromSchedAffinity();
        if ($affinity > 0) {
            return $affinity;
        }
        $cpuinfo = @\file_get_contents('/proc/cpuinfo');
        if (\is_string($cpuinfo)) {
            $count = \preg_match_all('/^processor\s*:/m', $cpuinfo);
            if (\is_int($count) && $count > 0) {
                return $count;
            }
        }

        return 1;
    }

    /**
     * The processors of the affinity mask (what `nproc` prints), so `taskset -c 0 bin/bobbin …`
     * starts one worker rather than one per core of the machine.
     */
    private static function fromSchedAffinity(): int
    {
        $status = @\file_get_contents('/proc/self/status');
        if (!\is_string($status) || \preg_match('/^Cpus_allowed_list:\s*(\S+)/m', $status, $m) !== 1) {
            return 0;
        }

        return self::countList($m[1]);
    }

    /** Counts a CPU list such as "0-3,6,8-9". */
    public static function countList(string $list): int
    {
        $count = 0;
        foreach (\explode(',', $list) as $range) {
            if (\preg_match('/^(\d+)(?:-(\d+))?$/', \trim($range), $m) !== 1) {
                return 0;
            }
            $count += isset($m[2]) ? (int) $m[2] - (int) $m[1] + 1 : 1;
        }

        return $count;
    }
}
