<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Nats;

use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Async\CancelledException;
use Bobbin\Async\OwnsResources;
use Bobbin\Async\SharedAttempt;
use Bobbin\Async\TimeoutException;
use Bobbin\Jobs\JobException;
use Bobbin\Jobs\JobProtocolException;
use Bobbin\Jobs\JobTimeoutException;
use Bobbin\Jobs\JobWorkerCrashedException;
use Bobbin\Jobs\JobWorkersUnavailableException;
use Bobbin\Jobs\Security\JobAuthenticationException;
use Bobbin\Jobs\Security\JobKeys;
use Bobbin\Jobs\Security\JobSigner;
use Bobbin\Jobs\Security\Refusals;
use Bobbin\Jobs\Transport\JobTransport;
use Bobbin\Jobs\Transport\TaskObserver;
use Bobbin\Jobs\Wire\EncodedTask;
use Bobbin\Jobs\Wire\TaskOutcome;
use Bobbin\Nats\Connection;
use Bobbin\Nats\ConnectionState;
use Bobbin\Nats\Exception\ConnectionLostException;
use Bobbin\Nats\Exception\NatsException;
use Bobbin\Nats\Headers;
use Bobbin\Nats\Inbox;
use Bobbin\Nats\Message;
use Bobbin\Nats\JetStream\JetStreamException;
use Bobbin\Nats\JetStream\RetentionPolicy;
use Bobbin\Nats\JetStream\StreamConfig;

/**
 * Tasks run by `bin/bobbin jobs-worker` processes on any host, over NATS.
 *
 * Awaited (any Task): a message to PREFIX.run with a reply subject of its own; whichever job
 * worker has a free slot takes it (a queue group of one-message subscriptions, one per free slot)
 * and answers "alive" at once and every heartbeat, "started", then the outcome. At most once: a
 * worker that goes silent for the missed heartbeats, or a connection that breaks while the task
 * is out, is an error for the caller, and the task is never sent again. While every worker is
 * busy the server answers "no responders" and the task is offered again (1 ms, doubling to 50 ms)
 * up to NatsJobsConfig::$unavailableAfter seconds.
 *
 * Durable (a DurableTask): published to the JetStream stream with its idempotency key as the
 * message id, so the stored task survives any crash; a worker acks it only after it sent the
 * result, so one that dies first has the task delivered again (at least once). The caller waits
 * for the result up to NatsJobsConfig::$durableWait, through silences and reconnects.
 *
 * Every message is signed (JobSigner) with the keys all hosts share: a task for the reply subject
 * its answers go to and with a deadline (a copy replayed later, or to another inbox, is refused),
 * every answer for its task's id. An answer that fails is dropped unread.
 *
 * One NATS connection per process, made at the first task (so a master that forks its HTTP
 * workers never shares one with them).
 */
final class NatsTransport implements JobTransport
{
    use OwnsResources;

    private const FIRST_RETRY_SECONDS = 0.001;
    private const LONGEST_RETRY_SECONDS = 0.05;

    private ?Connection $connection = null;
    /** @var SharedAttempt<Connection> this process's connect */
    private SharedAttempt $connects;
    private int $connectedPid = 0;
    private bool $streamReady = false;
    private readonly JobSigner $signer;
    /** The last reply refused while a task waited: named in the error if no valid answer comes. */
    private ?JobAuthenticationException $lastRefusal = null;

    /** @param JobKeys $keys the keys every host shares (--jobs-key-file): tasks are signed, answers verified */
    public function __construct(public readonly NatsJobsConfig $config, JobKeys $keys)
    {
        $this->connects = new SharedAttempt();
        $this->signer = new JobSigner($keys);
    }

    public function execute(EncodedTask $task, ?Cancellation $cancellation, TaskObserver $observer): TaskOutcome
    {
        $cancellation?->throwIfRequested();
        $connection = $this->connection($cancellation);
        $durable = $task->idempotencyKey !== null;
        $inbox = $connection->openInbox(!$durable);
        try {
            if ($durable) {
                $this->publishDurable($connection, $task, $inbox, $cancellation);

                return $this->awaitDurable($task, $inbox, $cancellation, $observer);
            }

            return $this->runAwaited($connection, $task, $inbox, $cancellation, $observer);
        } catch (ConnectionLostException $lost) {
            throw new JobWorkersUnavailableException(\sprintf('The connection to NATS broke while %s was out: it may or may not have run (%s)', $task->class, $lost->getMessage()), 0, $lost);
        } catch (NatsException $error) {
            throw new JobWorkersUnavailableException(\sprintf('NATS could not carry %s: %s', $task->class, $error->getMessage()), 0, $error);
        } finally {
            $inbox->close();
        }
    }

    public function runsInCallingProcess(): bool
    {
        return false;
    }

    /** Closes this process's connection (the next task makes a new one). */
    public function close(): void
    {
        $this->connection?->close();
        $this->connection = null;
    }

    private function runAwaited(Connection $connection, EncodedTask $task, Inbox $inbox, ?Cancellation $cancellation, TaskObserver $observer): TaskOutcome
    {
        $payload = $this->signer->sealTask(RemoteWire::task($task), $inbox->subject, $this->config->awaitedDeadline(\microtime(true)));
        $subject = $this->config->awaitedSubject();
        $connection->publish($subject, $payload, null, $inbox->subject, $cancellation);
        $offeredSince = \microtime(true);
        $retry = self::FIRST_RETRY_SECONDS;
        $holder = null; // the reply subject of the worker that holds the task, for a cancel
        $workerPid = 0;
        $wait = $this->config->silenceLimit();
        try {
            while (true) {
                try {
                    $message = $inbox->next($wait, $cancellation);
                } catch (TimeoutException $silence) {
                    if ($cancellation !== null && $cancellation->isRequested()) {
                        throw $silence;
                    }
                    throw $holder === null
                        ? new JobWorkersUnavailableException(\sprintf(
                            'No job worker answered for %s within %.1f s: it may or may not run%s',
                            $task->class,
                            $wait,
                            $this->refusalHint(' (or every job worker refused its signature: is --jobs-key-file the same on both sides? Their logs say)'),
                        ))
                        : new JobWorkerCrashedException(\sprintf('The job worker %d holding %s went silent for %.1f s: its process or host died, or it lost NATS', $workerPid, $task->class, $wait), $workerPid);
                }
                if ($message->status() === 503) {
                    $reply = null;
                } elseif (($reply = $this->openReply($task, $message)) === null) {
                    continue; // not from a job worker with our key: as if it never came
                }
                if ($reply === null || $reply->kind === RemoteReplyKind::Busy) {
                    // Every job worker is busy (or none runs): offer it again, as the local pool retries a full accept queue.
                    if (\microtime(true) - $offeredSince > $this->config->unavailableAfter) {
                        throw new JobWorkersUnavailableException(\sprintf('No job worker took %s within %.1f s: none is running, or all stayed busy; nothing was run', $task->class, $this->config->unavailableAfter));
                    }
                    Async::delay($retry, $cancellation);
                    $retry = \min(self::LONGEST_RETRY_SECONDS, $retry * 2);
                    $connection->publish($subject, $payload, null, $inbox->subject, $cancellation);
                    continue;
                }
                switch ($reply->kind) {
                    case RemoteReplyKind::Alive:
                        $holder ??= $message->replyTo;
                        $workerPid = $workerPid ?: $reply->workerPid;
                        break;
                    case RemoteReplyKind::Started:
                        $workerPid = $reply->workerPid;
                        $observer->started($reply->workerPid);
                        break;
                    default:
                        return $this->ended($reply, $task, $workerPid);
                }
            }
        } catch (CancelledException $cancelled) {
            if ($holder !== null) {
                // Withdraws it if the worker has not started it yet; a running task runs to its end.
                $connection->publish($holder, $this->signer->sealCancel($inbox->subject, $this->config->replyDeadline(\microtime(true))));
            }
            throw $cancelled;
        }
    }

    private function publishDurable(Connection $connection, EncodedTask $task, Inbox $inbox, ?Cancellation $cancellation): void
    {
        $js = $connection->jetStream();
        if (!$this->streamReady) {
            $js->ensureStream(self::streamConfig($this->config), $cancellation);
            $this->streamReady = true;
        }
        try {
            $sealed = $this->signer->sealTask(RemoteWire::task($task), $inbox->subject, \microtime(true) + $this->config->durableTtl);
            $ack = $js->publish($this->config->durableSubject(), $sealed, (string) $task->idempotencyKey, Headers::of(['Bobbin-Reply' => $inbox->subject]), null, $cancellation);
        } catch (JetStreamException $error) {
            $this->streamReady = false;
            throw $error;
        }
        if ($ack->duplicate) {
            throw new JobException(\sprintf(
                'The durable task %s with idempotency key %s was submitted already (stream sequence %d): it runs once, and its result goes to that first submitter',
                $task->class,
                $task->idempotencyKey,
                $ack->sequence,
            ));
        }
    }

    private function awaitDurable(EncodedTask $task, Inbox $inbox, ?Cancellation $cancellation, TaskObserver $observer): TaskOutcome
    {
        $deadline = \microtime(true) + $this->config->durableWait;
        $workerPid = 0;
        while (true) {
            try {
                $message = $inbox->next(\max(0.0, $deadline - \microtime(true)), $cancellation);
            } catch (TimeoutException $late) {
                if ($cancellation !== null && $cancellation->isRequested()) {
                    throw $late;
                }
                throw new JobTimeoutException(\sprintf('No result for the durable task %s within %.0f s; it is stored and will still run%s', $task->class, $this->config->durableWait, $this->refusalHint('')));
            }
            $reply = $this->openReply($task, $message);
            if ($reply === null) {
                continue;
            }
            switch ($reply->kind) {
                case RemoteReplyKind::Alive:
                    break; // silences are no error here: a dead worker's task comes back to another
                case RemoteReplyKind::Started:
                    $workerPid = $reply->workerPid;
                    $observer->started($reply->workerPid);
                    break;
                default:
                    return $this->ended($reply, $task, $workerPid);
            }
        }
    }

    /**
     * The answer in $message once its signature for this task checks out; null (counted, logged
     * once per source) when it does not: anyone who can publish to the inbox could have sent it,
     * so it is no reason to give up the task either.
     *
     * @throws JobProtocolException for an authentic answer against the rules
     */
    private function openReply(EncodedTask $task, Message $message): ?RemoteReply
    {
        try {
            $body = $this->signer->openReply($task->id, $message->payload);
        } catch (JobAuthenticationException $refused) {
            $this->lastRefusal = $refused;
            Refusals::shared()->record($refused, 'an answer about ' . $task->class, $message->replyTo !== null ? 'the job worker at ' . $message->replyTo : 'a publisher on ' . $message->subject);

            return null;
        }

        return RemoteWire::decodeReply($body);
    }

    /** What to add to a timeout's message: the refusal seen meanwhile, else $otherwise. */
    private function refusalHint(string $otherwise): string
    {
        $refusal = $this->lastRefusal;
        $this->lastRefusal = null;

        return $refusal === null ? $otherwise : \sprintf(' (answers came that were refused: %s)', $refusal->getMessage());
    }

    private function ended(RemoteReply $reply, EncodedTask $task, int $workerPid): TaskOutcome
    {
        return match ($reply->kind) {
            RemoteReplyKind::Outcome => $reply->outcome ?? throw new JobException('An outcome without content'),
            RemoteReplyKind::Crashed => throw new JobWorkerCrashedException($reply->text, $workerPid),
            RemoteReplyKind::TimedOut => throw new JobTimeoutException($reply->text, $workerPid),
            default => throw new JobWorkersUnavailableException(\sprintf('The job worker could not run %s: %s', $task->class, $reply->text)),
        };
    }

    private function connection(?Cancellation $cancellation): Connection
    {
        $pid = (int) \getmypid();
        if ($this->connection !== null && $this->connectedPid === $pid && $this->connection->state() !== ConnectionState::Closed) {
            return $this->connection;
        }
        if ($this->connectedPid !== $pid) {
            // A connection or connect inherited through fork() belongs to the parent: never use it here.
            $this->connectedPid = $pid;
            $this->connection = null;
            $this->connects = new SharedAttempt();
        }

        // Tasks submitted together share the one connect; each waits for it within its own
        // cancellation, and the connect takes none (it has its own timeout).
        return $this->connects->await($this->connect(...), $cancellation);
    }

    private function connect(): Connection
    {
        $this->streamReady = false;
        try {
            return $this->connection = Connection::connect($this->config->connection);
        } catch (NatsException $error) {
            throw new JobWorkersUnavailableException('Cannot reach the job workers\' NATS server: ' . $error->getMessage(), 0, $error);
        }
    }

    /** The stream of durable tasks: a work queue (a task is gone once acked), kept on file. */
    public static function streamConfig(NatsJobsConfig $config): StreamConfig
    {
        return new StreamConfig($config->stream, [$config->durableSubject()], RetentionPolicy::WorkQueue);
    }
}
