<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Local;

use Bobbin\Async\Cancellation;
use Bobbin\Async\OwnsResources;
use Bobbin\Async\StreamClosedException;
use Bobbin\Async\StreamWatcher;
use Bobbin\Async\TimeoutException;
use Bobbin\Jobs\JobProtocolException;
use Bobbin\Jobs\JobTimeoutException;
use Bobbin\Jobs\JobWorkerCrashedException;
use Bobbin\Jobs\Security\JobAuthenticationException;
use Bobbin\Jobs\Security\JobSigner;
use Bobbin\Jobs\Security\Refusals;
use Bobbin\Jobs\Transport\TaskObserver;
use Bobbin\Jobs\Wire\EncodedTask;
use Bobbin\Jobs\Wire\FrameDecoder;
use Bobbin\Jobs\Wire\JobWire;
use Bobbin\Jobs\Wire\ReplyKind;
use Bobbin\Jobs\Wire\TaskOutcome;

/**
 * One task's conversation with the job worker that accepts it: the task out; "started" (the
 * worker's pid), then the outcome back. The time limit counts from "started" — time in the
 * queue is the caller's cancellation's business — and when it passes this side kills the
 * worker: a process deep in CPU work cannot be asked to stop.
 *
 * @internal
 */
final class TaskCall
{
    use OwnsResources;

    private const READ_BYTES = 1 << 20;

    private readonly FrameDecoder $decoder;
    private int $workerPid = 0;
    /** hrtime() past which the task has overrun its limit; null before it started or without a limit. */
    private ?float $deadline = null;

    /** @param resource $stream non-blocking, connected */
    public function __construct(
        private $stream,
        private readonly StreamWatcher $watcher,
        private readonly EncodedTask $task,
        int $maxPayload,
        private readonly JobSigner $signer,
        private readonly string $socketPath,
    ) {
        // A result frame carries the run time and kind before the payload.
        $this->decoder = new FrameDecoder($maxPayload + 64);
    }

    public function run(string $frame, ?Cancellation $cancellation, TaskObserver $observer): TaskOutcome
    {
        $this->send($frame, $cancellation);
        // The worker cannot have answered yet: wait before the first read, not after a futile one.
        $this->awaitReply($cancellation);
        while (true) {
            while (($payload = $this->decoder->next()) !== null) {
                $reply = JobWire::decodeReply($this->open($payload));
                switch ($reply->kind) {
                    case ReplyKind::Started:
                        $this->workerPid = $reply->workerPid;
                        $observer->started($reply->workerPid);
                        if ($this->task->timeLimit > 0) {
                            $this->deadline = \hrtime(true) + $this->task->timeLimit * 1e9;
                        }
                        break;
                    case ReplyKind::Outcome:
                        \assert($reply->outcome !== null);

                        return $reply->outcome;
                    case ReplyKind::Crashed:
                        throw new JobWorkerCrashedException(\sprintf(
                            'The job worker %d ended while running %s: %s',
                            $this->workerPid,
                            $this->task->class,
                            $reply->reason,
                        ), $this->workerPid);
                }
            }
            if (!$this->read()) {
                $this->awaitReply($cancellation);
            }
        }
    }

    /** A reply's body once its signature for this task checks out. */
    private function open(string $payload): string
    {
        try {
            return $this->signer->openReply($this->task->id, $payload);
        } catch (JobAuthenticationException $refused) {
            $source = $this->workerPid > 0 ? \sprintf('job worker %d on %s', $this->workerPid, $this->socketPath) : 'the job socket ' . $this->socketPath;
            Refusals::shared()->record($refused, 'a reply about ' . $this->task->class, $source);
            throw new JobProtocolException(\sprintf('A reply about %s from %s was refused: %s', $this->task->class, $source, $refused->getMessage()), 0, $refused);
        }
    }

    private function send(string $frame, ?Cancellation $cancellation): void
    {
        while (true) {
            $written = @\fwrite($this->stream, $frame);
            if ($written === false) {
                throw $this->ended();
            }
            if ($written === \strlen($frame)) {
                return;
            }
            // A large task waits for the worker to read it (or for one to accept it at all).
            $frame = \substr($frame, $written);
            try {
                $this->watcher->awaitWritable(null, $cancellation);
            } catch (StreamClosedException) {
                throw $this->ended();
            }
        }
    }

    /** Reads what has arrived; false when nothing has. */
    private function read(): bool
    {
        $data = @\fread($this->stream, self::READ_BYTES);
        if ($data === false || ($data === '' && \feof($this->stream))) {
            throw $this->ended();
        }
        if ($data === '') {
            return false;
        }
        $this->decoder->append($data);

        return true;
    }

    private function awaitReply(?Cancellation $cancellation): void
    {
        $timeout = $this->deadline === null ? null : \max(0.0, ($this->deadline - \hrtime(true)) / 1e9);
        try {
            $this->watcher->awaitReadable($timeout, $cancellation);
        } catch (StreamClosedException) {
            throw $this->ended();
        } catch (TimeoutException $timedOut) {
            if ($cancellation !== null && $cancellation->isRequested()) {
                throw $timedOut; // the caller's own deadline, not the task's
            }
            if ($this->read()) {
                return; // the answer came as the limit passed: it wins
            }
            \posix_kill($this->workerPid, \SIGKILL);
            throw new JobTimeoutException(\sprintf(
                'The task %s ran past its time limit of %s s: its job worker %d was killed',
                $this->task->class,
                \rtrim(\rtrim(\sprintf('%.3f', $this->task->timeLimit), '0'), '.'),
                $this->workerPid,
            ), $this->workerPid);
        }
    }

    private function ended(): JobWorkerCrashedException
    {
        if ($this->workerPid === 0) {
            return new JobWorkerCrashedException(\sprintf('A job worker took %s and ended before running it', $this->task->class));
        }

        return new JobWorkerCrashedException(\sprintf(
            'The job worker %d ended while running %s (killed by a signal or out of memory: it had no last words)',
            $this->workerPid,
            $this->task->class,
        ), $this->workerPid);
    }
}
