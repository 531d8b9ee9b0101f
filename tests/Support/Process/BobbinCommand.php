<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Process;

/** Runs `bin/bobbin …` to completion (control commands, or a serve that must fail fast). */
final class BobbinCommand
{
    /**
     * @param list<string> $arguments after bin/bobbin
     * @return array{int, string, string} exit code, stdout, stderr
     */
    public static function run(array $arguments, float $timeout = 20.0): array
    {
        $command = \array_merge([\PHP_BINARY, MasterProcess::root() . '/bin/bobbin'], $arguments);
        $environment = [];
        foreach (\getenv() as $name => $value) {
            if (!\str_starts_with($name, 'BOBBIN_')) {
                $environment[$name] = $value;
            }
        }
        $process = \proc_open($command, [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, null, $environment);
        if ($process === false) {
            throw new \RuntimeException('Cannot start bin/bobbin');
        }
        \stream_set_blocking($pipes[1], false);
        \stream_set_blocking($pipes[2], false);
        $out = $err = '';
        $deadline = \microtime(true) + $timeout;
        while (true) {
            $read = [$pipes[1], $pipes[2]];
            $write = $except = null;
            @\stream_select($read, $write, $except, 0, 50_000);
            $out .= (string) \stream_get_contents($pipes[1]);
            $err .= (string) \stream_get_contents($pipes[2]);
            $status = \proc_get_status($process);
            if (!$status['running']) {
                $out .= (string) \stream_get_contents($pipes[1]);
                $err .= (string) \stream_get_contents($pipes[2]);
                \proc_close($process);

                return [$status['exitcode'], $out, $err];
            }
            if (\microtime(true) > $deadline) {
                \posix_kill($status['pid'], \SIGKILL);
                \proc_close($process);
                throw new \RuntimeException("bin/bobbin did not finish within $timeout s:\n$err");
            }
        }
    }
}
