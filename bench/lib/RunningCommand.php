<?php

declare(strict_types=1);

namespace Bobbin\Bench;

/** A child process started by Shell::start(); its output pipes are drained while it runs. */
final class RunningCommand
{
    private string $stdout = '';
    private string $stderr = '';
    private ?int $exitCode = null;
    private readonly float $startedAt;
    public readonly int $pid;

    /**
     * @param resource $process
     * @param array<int, resource> $pipes
     */
    public function __construct(private $process, private array $pipes, public readonly string $description)
    {
        $this->startedAt = \microtime(true);
        foreach ($this->pipes as $pipe) {
            \stream_set_blocking($pipe, false);
        }
        $this->pid = (int) \proc_get_status($process)['pid'];
    }

    public function isRunning(): bool
    {
        if ($this->exitCode !== null) {
            return false;
        }
        $this->drain(0);
        $status = \proc_get_status($this->process);
        if ($status['running']) {
            return true;
        }
        $this->exitCode = (int) $status['exitcode'];

        return false;
    }

    /**
     * Reads output for up to $seconds, returning as soon as the process exits (its pipes reach
     * end-of-file), so an exit is seen within milliseconds, not at the next poll.
     */
    public function runFor(float $seconds): void
    {
        $deadline = \microtime(true) + $seconds;
        while ($this->isRunning()) {
            $left = $deadline - \microtime(true);
            if ($left <= 0) {
                return;
            }
            $this->drain((int) (\min($left, 0.05) * 1e6));
        }
    }

    /** Waits for the exit, reading output meanwhile; a timeout sends SIGKILL. */
    public function wait(?float $timeout = null): CommandResult
    {
        $deadline = $timeout === null ? null : \microtime(true) + $timeout;
        while ($this->isRunning()) {
            if ($deadline !== null && \microtime(true) > $deadline) {
                $this->signal(\SIGKILL);
                $deadline = null;
            }
            $this->drain(5_000);
        }
        $this->drain(0);
        foreach ($this->pipes as $pipe) {
            \fclose($pipe);
        }
        $this->pipes = [];
        \proc_close($this->process);

        return new CommandResult((int) $this->exitCode, $this->stdout, $this->stderr, \microtime(true) - $this->startedAt);
    }

    public function signal(int $signal): void
    {
        if ($this->exitCode === null) {
            \posix_kill($this->pid, $signal);
        }
    }

    /** SIGTERM, a bounded wait, then SIGKILL. */
    public function stop(float $grace = 15.0): CommandResult
    {
        $this->signal(\SIGTERM);
        $deadline = \microtime(true) + $grace;
        while ($this->isRunning() && \microtime(true) < $deadline) {
            \usleep(50_000);
        }

        return $this->wait(0.0);
    }

    private function drain(int $waitMicros): void
    {
        $read = \array_values(\array_filter($this->pipes, static fn ($p): bool => !\feof($p)));
        if ($read === []) {
            if ($waitMicros > 0) {
                \usleep($waitMicros);
            }

            return;
        }
        $write = $except = null;
        if (@\stream_select($read, $write, $except, 0, $waitMicros) > 0) {
            foreach ($read as $pipe) {
                $chunk = (string) \fread($pipe, 65536);
                if ($pipe === ($this->pipes[1] ?? null)) {
                    $this->stdout .= $chunk;
                } else {
                    $this->stderr .= $chunk;
                }
            }
        }
    }
}
