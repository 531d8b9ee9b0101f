<?php

declare(strict_types=1);

namespace Bobbin\Bench;

/**
 * Counting a PHP program's user-space instructions under valgrind's callgrind: the count does not
 * move with the machine's load, where seconds do. The instruction benches (async, mysql, postgres,
 * redis, nats, tarantool) build their commands from these parts; each decides only what runs.
 */
final class Callgrind
{
    /**
     * PHP as bin/bobbin runs it: opcache on, and the JIT unless $jit is "no".
     *
     * @param bool $perfMap the JIT writes /tmp/perf-PID.map, which names its code for
     *                      bench/async/instructions-by-function.php
     * @return list<string>
     */
    public static function php(string $jit = 'tracing', bool $perfMap = false): array
    {
        $php = [\PHP_BINARY, '-d', 'opcache.enable_cli=1'];
        if ($jit === 'no') {
            return $php;
        }
        $php = [...$php, '-d', 'opcache.jit=' . $jit, '-d', 'opcache.jit_buffer_size=64M'];

        return $perfMap ? [...$php, '-d', 'opcache.jit_debug=0x10'] : $php;
    }

    /**
     * valgrind's part of the command line; "%p" in $outFile becomes each process's PID.
     *
     * @return list<string>
     */
    public static function prefix(string $outFile): array
    {
        return ['valgrind', '--tool=callgrind', '--smc-check=all-non-file', '--callgrind-out-file=' . $outFile];
    }

    /** A fresh output file name (the caller deletes it, or keep() moves it). */
    public static function outFile(string $label = 'bobbin-callgrind-'): string
    {
        return (string) \tempnam(\sys_get_temp_dir(), $label);
    }

    /**
     * Runs $command (without valgrind's prefix) to its end under callgrind, its output discarded,
     * and returns its instructions; the file goes to keep() when $keepDir is given.
     *
     * @param list<string> $command
     * @param array<string, string>|null $env the whole environment, or null for the current one
     */
    public static function count(array $command, ?string $keepDir = null, ?string $keepName = null, ?array $env = null): int
    {
        $out = self::outFile();
        $process = \proc_open(
            [...self::prefix($out), ...$command],
            [1 => ['file', '/dev/null', 'w'], 2 => ['file', $out . '.log', 'w']],
            $pipes,
            null,
            $env,
        );
        if (!\is_resource($process)) {
            throw new \RuntimeException('Could not start valgrind');
        }
        if (\proc_close($process) !== 0) {
            $log = (string) @\file_get_contents($out . '.log');
            @\unlink($out . '.log');
            @\unlink($out);
            throw new \RuntimeException(\implode(' ', $command) . " failed under callgrind:\n" . $log);
        }
        @\unlink($out . '.log');

        return self::finish($out, $keepDir, $keepName);
    }

    /**
     * The total of a finished callgrind file; the file is then moved to $keepDir/callgrind.$keepName
     * (with the JIT's perf map of its process beside it, as perf.map.$keepName), or deleted.
     */
    public static function finish(string $file, ?string $keepDir = null, ?string $keepName = null): int
    {
        $total = self::total($file);
        if ($keepDir !== null) {
            self::keep($file, $keepDir, $keepName ?? 'out');
        } else {
            @\unlink($file);
        }

        return $total ?? throw new \RuntimeException("callgrind wrote no totals in $file");
    }

    /** The "totals:" (or "summary:") line of a callgrind file, null when there is none. */
    public static function total(string $file): ?int
    {
        $total = null;
        foreach (\file($file) ?: [] as $line) {
            if (\preg_match('/^(?:summary|totals):\s+(\d+)/', $line, $m) === 1) {
                $total = (int) $m[1];
            }
        }

        return $total;
    }

    /** Moves a callgrind file, and the perf map its process's JIT wrote, into $dir. */
    public static function keep(string $file, string $dir, string $name): void
    {
        @\mkdir($dir, 0777, true);
        $head = (string) @\file_get_contents($file, false, null, 0, 4096);
        \rename($file, "$dir/callgrind.$name");
        $pid = \preg_match('/^pid:\s*(\d+)/m', $head, $m) === 1 ? $m[1] : null;
        if ($pid !== null && \is_file("/tmp/perf-$pid.map")) {
            \rename("/tmp/perf-$pid.map", "$dir/perf.map.$name");
        }
    }
}
