<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Local;

use Bobbin\Async\OwnsResources;
use Bobbin\Jobs\Execution\TaskRunner;
use Bobbin\Jobs\JobProtocolException;
use Bobbin\Jobs\Security\JobAuthenticationException;
use Bobbin\Jobs\Security\JobKeys;
use Bobbin\Jobs\Security\JobSigner;
use Bobbin\Jobs\Security\Refusals;
use Bobbin\Jobs\Wire\EncodedTask;
use Bobbin\Jobs\Wire\FrameDecoder;
use Bobbin\Jobs\Wire\JobWire;

/**
 * The job worker's side of LocalPoolTransport: takes one connection from the shared listening
 * socket, runs its task, answers, closes — one task at a time, in plain blocking code (a job
 * worker has nothing else to do while its task runs).
 *
 * A caller that gave up before the task was taken has closed its connection: its task is read,
 * found abandoned and skipped. While the task runs, an alarm a little past its time limit is the
 * backstop that ends this process when no caller is left to kill it.
 */
final class TaskServer
{
    use OwnsResources;

    /** Seconds past the time limit after which the process ends itself (SIGALRM's default action). */
    private const ALARM_GRACE_SECONDS = 2;
    private const READ_BYTES = 1 << 20;

    /** Seconds a reply stays valid: its caller reads it at once. */
    private const REPLY_VALIDITY_SECONDS = 300.0;

    private readonly TaskRunner $runner;
    private readonly JobSigner $signer;
    private readonly int $pid;
    /** @var resource|null the connection of the task running now */
    private $current = null;
    private ?EncodedTask $currentTask = null;

    /**
     * @param resource $listener the pool's listening socket, non-blocking, shared by every job worker
     * @param JobKeys $keys the pool's: a task not signed with them is refused unread
     * @param float $ioTimeout seconds a caller may take to send its task or read the answer
     */
    public function __construct(private $listener, JobKeys $keys, private readonly int $maxPayload, private readonly float $ioTimeout = 30.0, private readonly string $socketName = 'the job socket')
    {
        $this->runner = new TaskRunner();
        $this->signer = new JobSigner($keys);
        $this->pid = (int) \getmypid();
    }

    /**
     * Takes one waiting connection, if there is one, and serves it to the end.
     *
     * @return bool whether a task ran (false: nothing waiting, another worker was quicker, or the caller had gone)
     */
    public function serveOne(): bool
    {
        $connection = @\stream_socket_accept($this->listener, 0);
        if ($connection === false) {
            return false;
        }
        try {
            return $this->serve($connection);
        } finally {
            $this->current = null;
            @\fclose($connection);
        }
    }

    /** The class of the task running now, '' between tasks. */
    public function runningTask(): string
    {
        return $this->current === null || $this->currentTask === null ? '' : $this->currentTask->class;
    }

    /**
     * Last words for the caller of the task running now, from a shutdown function: the process
     * is ending under it (exit() in the task, a fatal error).
     */
    public function reportCrash(string $reason): void
    {
        if ($this->current !== null && $this->currentTask !== null) {
            $this->write($this->current, $this->reply($this->currentTask, JobWire::crashed($reason)));
        }
    }

    /** @param resource $connection blocking, as accept() makes it */
    private function serve($connection): bool
    {
        \stream_set_timeout($connection, (int) \ceil($this->ioTimeout));
        $task = $this->readTask($connection);
        if ($task === null || $this->abandoned($connection)) {
            return false;
        }
        if (!$this->write($connection, $this->reply($task, JobWire::started($this->pid)))) {
            return false;
        }
        $this->current = $connection;
        $this->currentTask = $task;
        $alarm = $task->timeLimit > 0 ? (int) \ceil($task->timeLimit) + self::ALARM_GRACE_SECONDS : 0;
        if ($alarm > 0) {
            \pcntl_alarm($alarm);
        }
        $outcome = $this->runner->run($task);
        if ($alarm > 0) {
            \pcntl_alarm(0);
        }
        $this->current = null;
        // A caller that left meanwhile makes this write fail: the result is dropped, nothing else.
        $this->write($connection, $this->reply($task, JobWire::outcome($outcome)));

        return true;
    }

    /** @param resource $connection */
    private function readTask($connection): ?EncodedTask
    {
        $decoder = new FrameDecoder($this->maxPayload + 64);
        try {
            while (($payload = $decoder->next()) === null) {
                $data = @\fread($connection, self::READ_BYTES);
                if ($data === false || $data === '') {
                    return null; // the caller left, or stalled past the timeout
                }
                $decoder->append($data);
            }

            // Nothing of it is decoded, let alone unserialized, before its signature checks out.
            return JobWire::decodeTask($this->signer->openTask($payload, ''));
        } catch (JobAuthenticationException $refused) {
            Refusals::shared()->record($refused, 'a task', $this->socketName);

            return null;
        } catch (JobProtocolException $error) {
            \error_log(\sprintf('bobbin: job worker %d dropped a connection: %s', \getmypid(), $error->getMessage()));

            return null;
        }
    }

    /**
     * Whether the caller has closed its end: it withdrew the task (cancelled) while it waited
     * to be accepted. (feof() on a socket peeks without waiting; a caller sends nothing after
     * its task, so there is nothing else it could find.)
     *
     * @param resource $connection
     */
    private function abandoned($connection): bool
    {
        return \feof($connection);
    }

    private function reply(EncodedTask $task, string $body): string
    {
        return FrameDecoder::frame($this->signer->sealReply($task->id, $body, \microtime(true) + self::REPLY_VALIDITY_SECONDS));
    }

    /** @param resource $connection */
    private function write($connection, string $bytes): bool
    {
        while ($bytes !== '') {
            $written = @\fwrite($connection, $bytes);
            if ($written === false || $written === 0) {
                return false;
            }
            $bytes = \substr($bytes, $written);
        }

        return true;
    }
}
