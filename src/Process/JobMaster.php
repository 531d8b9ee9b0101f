<?php

declare(strict_types=1);

namespace Bobbin\Process;

use Bobbin\Async\OwnsResources;
use Psr\Log\LoggerInterface;

/**
 * The job workers of a single serving process (--single-process): a small supervisor forked
 * before the application loads, which runs JobSupervisor in a plain blocking loop as the master
 * does, while the serving process runs its event loop. Forking the job workers from this clean
 * process means none of them holds a copy of the server's listening socket or its clients'
 * connections (a copy would keep a closed connection open for its client).
 *
 * It leaves the terminal's process group (Ctrl-C stops the serving process, which drains while
 * the job workers go on finishing its tasks), and it stops when the serving process says so —
 * or, at once, killing the tasks in hand, when the serving process is gone (kill -9, the OOM
 * killer): nobody is left to receive their results.
 */
final class JobMaster
{
    use OwnsResources;

    /** Blocked in the supervisor and waited for with sigtimedwait(). */
    public const SIGNALS = [\SIGCHLD, \SIGTERM, \SIGINT, \SIGHUP];
    private const TICK_MICROSECONDS = 100_000;

    /** @param resource $channel the serving process's end of their socket pair */
    private function __construct(public readonly int $pid, private $channel, private readonly LoggerInterface $logger)
    {
    }

    /**
     * Binds the job socket and forks the supervisor; returns (in the serving process) once the
     * job workers are ready.
     *
     * @throws MasterFailedException when the socket cannot be made or a job worker cannot boot
     */
    public static function start(JobPoolConfig $config, LoggerInterface $logger): self
    {
        $supervisor = new JobSupervisor($config, $logger, static function (): void {
        });
        $supervisor->open();
        $pair = \stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        $pid = $pair === false ? -1 : \pcntl_fork();
        if ($pid === -1) {
            $supervisor->close();
            throw new MasterFailedException('cannot start the job workers\' supervisor (socket pair or fork failed)');
        }
        \assert($pair !== false);
        if ($pid === 0) {
            \fclose($pair[0]);
            $supervisor->moveToThisProcess();
            exit(self::superviseThenClose($supervisor, $pair[1], $logger));
        }
        \fclose($pair[1]);
        $supervisor->forgetInChild(); // the supervisor owns the socket now; this process only connects
        $master = new self($pid, $pair[0], $logger);
        $master->awaitReady($config->bootTimeout + 5.0);

        return $master;
    }

    /**
     * The handle of a supervisor this process started as a program of its own (LateJobMaster),
     * which announced itself ready on $channel.
     *
     * @param resource $channel
     */
    public static function adopt(int $pid, $channel, LoggerInterface $logger): self
    {
        return new self($pid, $channel, $logger);
    }

    /**
     * The supervisor in a process of its own (bin/bobbin job-master): binds the job socket here,
     * then supervises as the forked one does, telling $parent "ready" or "failed …".
     *
     * @param resource $parent
     */
    public static function superviseHere(JobPoolConfig $config, $parent, LoggerInterface $logger): int
    {
        $supervisor = new JobSupervisor($config, $logger, static function (): void {
        });
        try {
            $supervisor->open();
        } catch (\Throwable $error) {
            if ($error instanceof MasterFailedException) {
                @\fwrite($parent, 'failed ' . \str_replace("\n", ' ', $error->getMessage()) . "\n");
            } else {
                $logger->critical('The job workers\' supervisor failed: {error}', ['error' => $error, 'exception' => $error]);
            }
            $supervisor->close();

            return 1;
        }

        return self::superviseThenClose($supervisor, $parent, $logger);
    }

    /**
     * supervise() in the supervisor's own process, forked or a program of its own; its exit code.
     *
     * @param resource $parent
     */
    private static function superviseThenClose(JobSupervisor $supervisor, $parent, LoggerInterface $logger): int
    {
        try {
            return self::supervise($supervisor, $parent, $logger);
        } catch (\Throwable $error) {
            $logger->critical('The job workers\' supervisor failed: {error}', ['error' => $error, 'exception' => $error]);

            return 1;
        } finally {
            $supervisor->close();
        }
    }

    /** In the serving process, at its end: the job workers finish the tasks in hand (up to $timeout s) and exit. */
    public function stop(float $timeout): void
    {
        \posix_kill($this->pid, \SIGTERM);
        $deadline = \microtime(true) + $timeout;
        while (\pcntl_waitpid($this->pid, $status, \WNOHANG) === 0) {
            if (\microtime(true) > $deadline) {
                $this->logger->warning('The job workers did not stop within {s} s; killing their supervisor', ['s' => $timeout]);
                \posix_kill($this->pid, \SIGKILL);
                \pcntl_waitpid($this->pid, $status);
                break;
            }
            \usleep(20_000);
        }
        if (\is_resource($this->channel)) {
            \fclose($this->channel);
        }
    }

    /** @throws MasterFailedException */
    private function awaitReady(float $timeout): void
    {
        \stream_set_timeout($this->channel, (int) \ceil($timeout));
        $line = \fgets($this->channel);
        if ($line === "ready\n") {
            return;
        }
        \pcntl_waitpid($this->pid, $status);
        throw new MasterFailedException($line === false || !\str_starts_with($line, 'failed ') ? 'the job workers did not start' : \rtrim(\substr($line, 7)));
    }

    /**
     * The supervisor's loop, in the forked child.
     *
     * @param resource $parent
     */
    private static function supervise(JobSupervisor $supervisor, $parent, LoggerInterface $logger): int
    {
        \pcntl_sigprocmask(\SIG_BLOCK, self::SIGNALS);
        @\posix_setpgid(0, 0);
        $supervisor->start();
        $announced = false;
        $stopping = false;
        while (!$supervisor->isStopped()) {
            // Before the wait too: a dormant pool is running at once, and a first task waits for this line.
            $announced = $announced || self::announce($supervisor, $parent);
            $read = $supervisor->channels();
            if (\is_resource($parent)) {
                $read[] = $parent;
            }
            $write = $except = null;
            if ($read !== []) {
                @\stream_select($read, $write, $except, 0, self::TICK_MICROSECONDS);
            }
            if (\is_resource($parent) && \in_array($parent, $read, true) && self::isClosed($parent)) {
                \fclose($parent);
                // The serving process (or jobs-worker) died without stopping us: it was the only
                // caller of these job workers, so no result of theirs can reach anyone, and a
                // durable task runs again elsewhere. Kill the tasks in hand now rather than let
                // orphans finish them (a stop closes this channel only after SIGTERM and our exit).
                $logger->warning('The process the job workers served is gone; killing the tasks in hand, which nobody can receive');
                $supervisor->stop(0.0);
            }
            while (($signal = \pcntl_sigtimedwait(self::SIGNALS, $info, 0, 0)) > 0) {
                if ($signal === \SIGTERM || $signal === \SIGINT) {
                    $supervisor->stop(5.0);
                }
            }
            while (($pid = \pcntl_waitpid(-1, $status, \WNOHANG)) > 0) {
                $supervisor->reaped($pid, $status);
            }
            $supervisor->poll(\microtime(true));
            $announced = $announced || self::announce($supervisor, $parent);
            $failure = $supervisor->failure();
            if ($failure !== null && !$stopping) {
                $stopping = true;
                $logger->error('The job workers stop: {reason}', ['reason' => $failure->getMessage()]);
                $supervisor->stop(2.0);
            }
        }

        return $supervisor->failure() === null ? 0 : 1;
    }

    /**
     * Tells the parent "ready" or "failed …" once the pool runs or failed; whether it did.
     *
     * @param resource|closed-resource $parent
     */
    private static function announce(JobSupervisor $supervisor, $parent): bool
    {
        $failure = $supervisor->failure();
        if ((!$supervisor->isRunning() && $failure === null) || !\is_resource($parent)) {
            return false;
        }
        @\fwrite($parent, $failure === null ? "ready\n" : 'failed ' . \str_replace("\n", ' ', $failure->getMessage()) . "\n");

        return true;
    }

    /** @param resource $stream */
    private static function isClosed($stream): bool
    {
        $data = @\fread($stream, 4096);

        return $data === false || ($data === '' && \feof($stream));
    }
}
