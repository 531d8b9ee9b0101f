<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Nats;

use Bobbin\Jobs\Jobs;
use Bobbin\Jobs\JobsConfig;
use Bobbin\Jobs\Nats\NatsJobsConfig;
use Bobbin\Jobs\Nats\NatsTransport;
use Bobbin\Jobs\Security\JobKeys;
use Bobbin\Tests\Support\Jobs\TestJobKeys;

/**
 * A real `bin/bobbin jobs-worker` on the checkout's nats-server, with the jobs tests' bootstrap.
 * Its job workers (children of its JobMaster) are found through /proc and, with the process
 * itself, killed by pid at the end if still alive.
 */
final class JobsWorkerProcess
{
    /** @var resource */
    private $process;
    public readonly int $pid;
    private readonly string $log;
    private bool $killed = false;
    /** The log as it was when stop() removed its file. */
    private ?string $finalLog = null;

    /** @param list<string> $options further options of jobs-worker */
    public function __construct(public readonly string $transport, array $options = [])
    {
        $this->log = (string) \tempnam(\sys_get_temp_dir(), 'bobbin-jobs-worker-');
        $command = \array_merge(
            [\PHP_BINARY, \dirname(__DIR__, 3) . '/bin/bobbin', 'jobs-worker', '--transport=' . $transport, '--job-bootstrap=' . \dirname(__DIR__) . '/Jobs/bootstrap.php', '--log-level=debug'],
            \array_filter($options, static fn (string $option): bool => !\str_starts_with($option, '--jobs-key-file=')) === $options ? ['--jobs-key-file=' . TestJobKeys::file()] : [],
            $options,
        );
        $process = \proc_open($command, [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', $this->log, 'w']], $pipes, null, ['BOBBIN_LOOP_DRIVER' => \getenv('BOBBIN_LOOP_DRIVER') ?: ''] + \getenv());
        if (!\is_resource($process)) {
            throw new \RuntimeException('Cannot start bin/bobbin jobs-worker');
        }
        $this->process = $process;
        $this->pid = (int) \proc_get_status($process)['pid'];
        $this->waitForLog('/Taking jobs from/', 20.0);
    }

    /** @var list<NatsTransport> the callers' transports made by jobs(), closed by closeCallers() */
    private static array $callers = [];

    /** A caller's Jobs on the same transport, as a serving process has one. */
    public static function jobs(string $transport, float $timeLimit = 60.0, int $queue = 64, ?JobKeys $keys = null): Jobs
    {
        self::$callers[] = $caller = new NatsTransport(NatsJobsConfig::fromUrl($transport), $keys ?? TestJobKeys::keys());

        return new Jobs($caller, new JobsConfig($queue, 10.0, $timeLimit));
    }

    /** Closes the NATS connections of the callers made so far: none outlives its test in this process's loop. */
    public static function closeCallers(): void
    {
        foreach (self::$callers as $caller) {
            $caller->close();
        }
        self::$callers = [];
    }

    /** @return list<string> the first match's groups */
    public function waitForLog(string $pattern, float $timeout = 10.0): array
    {
        $deadline = \microtime(true) + $timeout;
        while (\microtime(true) < $deadline) {
            if (\preg_match($pattern, (string) @\file_get_contents($this->log), $match) === 1) {
                return $match;
            }
            if (!\proc_get_status($this->process)['running']) {
                break;
            }
            \usleep(20_000);
        }
        throw new \RuntimeException(\sprintf('No %s in the jobs-worker\'s log: %s', $pattern, \substr((string) @\file_get_contents($this->log), -3000)));
    }

    public function log(): string
    {
        return $this->finalLog ?? (string) @\file_get_contents($this->log);
    }

    /** @return list<int> the pids of its job workers (grandchildren, through its JobMaster) */
    public function jobWorkerPids(): array
    {
        $pids = [];
        foreach (self::children($this->pid) as $master) {
            foreach (self::children($master) as $worker) {
                $pids[] = $worker;
            }
        }
        \sort($pids);

        return $pids;
    }

    public function isRunning(): bool
    {
        return \proc_get_status($this->process)['running'];
    }

    /** SIGTERM, then waits for the exit (SIGKILL after $timeout); the exit code. */
    public function stop(float $timeout = 15.0): int
    {
        $workers = $this->jobWorkerPids();
        \posix_kill($this->pid, \SIGTERM);
        $deadline = \microtime(true) + $timeout;
        while (($status = \proc_get_status($this->process))['running'] && \microtime(true) < $deadline) {
            \usleep(20_000);
        }
        if ($status['running']) {
            $this->kill();

            return -1;
        }
        self::killAll($workers);
        $this->killed = true;
        @\proc_close($this->process);
        $this->finalLog = $this->log();
        @\unlink($this->log);

        return $status['exitcode'];
    }

    /** kill -9 of this process, its JobMaster and its job workers (once; later calls do nothing). */
    public function kill(): void
    {
        if ($this->killed) {
            return;
        }
        $this->killed = true;
        $masters = self::children($this->pid);
        $all = [$this->pid, ...$masters];
        foreach ($masters as $master) {
            $all = [...$all, ...self::children($master)];
        }
        self::killAll($all);
        @\proc_close($this->process);
        @\unlink($this->log);
    }

    /** @param list<int> $pids */
    private static function killAll(array $pids): void
    {
        foreach ($pids as $pid) {
            @\posix_kill($pid, \SIGKILL);
        }
    }

    /** @return list<int> */
    public static function children(int $pid): array
    {
        $children = [];
        foreach (\glob('/proc/[0-9]*/stat') ?: [] as $stat) {
            $line = (string) @\file_get_contents($stat);
            // pid (comm) state ppid …: comm may hold spaces, so split after its closing parenthesis.
            $fields = \explode(' ', \substr($line, (int) \strrpos($line, ')') + 2));
            if ((int) ($fields[1] ?? 0) === $pid) {
                $children[] = (int) \basename(\dirname($stat));
            }
        }

        return $children;
    }
}
