<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Nats;

use Bobbin\Async\Async;
use Bobbin\Async\CancellationSource;
use Bobbin\Async\CancelledException;
use Bobbin\Async\Future;
use Bobbin\Async\OwnsResources;
use Bobbin\Async\Timer;
use Bobbin\Jobs\JobProtocolException;
use Bobbin\Jobs\JobTimeoutException;
use Bobbin\Jobs\JobWorkerCrashedException;
use Bobbin\Jobs\Security\JobAuthenticationException;
use Bobbin\Jobs\Security\JobKeys;
use Bobbin\Jobs\Security\JobSigner;
use Bobbin\Jobs\Security\Refusals;
use Bobbin\Jobs\Transport\JobTransport;
use Bobbin\Jobs\Wire\EncodedTask;
use Bobbin\Nats\Connection;
use Bobbin\Nats\Exception\NatsException;
use Bobbin\Nats\Exception\PayloadTooLargeException;
use Bobbin\Nats\Exception\SubscriptionClosedException;
use Bobbin\Nats\JetStream\ConsumerConfig;
use Bobbin\Nats\JetStream\JetStreamMessage;
use Bobbin\Nats\Message;
use Bobbin\Nats\Subscription;
use Psr\Log\LoggerInterface;

/**
 * The NATS side of `bin/bobbin jobs-worker`: takes tasks from NATS and runs them on this host's
 * job workers (any JobTransport; the command gives it the local pool, which brings time limits,
 * crash detection and recycling), then answers.
 *
 * It takes only what it has room for: each free awaited slot is one queue-group subscription
 * that ends after one message (so the server gives a task to a host with a free slot, or answers
 * "no responders" and the caller offers it again), and each durable slot pulls one task at a time
 * from the JetStream consumer. Every task it holds gets "alive" every heartbeat, and a durable
 * one is kept in progress, so a caller (or JetStream) can tell a dead host from a busy one.
 *
 * It takes no task that is not signed with the shared keys (JobSigner), for the reply subject it
 * came with, before its deadline: such a message is dropped before any byte of it is decoded
 * (a durable one terminated), counted, and logged once per source. Its answers are signed too.
 */
final class RemoteJobServer
{
    use OwnsResources;

    private const FETCH_SECONDS = 5.0;

    private readonly CancellationSource $stop;
    /** @var array<string, HeldTask> by the caller's reply subject (awaited) or "#sequence" (durable) */
    private array $held = [];
    /** @var list<Future<mixed>> */
    private array $slots = [];
    private ?Timer $heartbeat = null;
    private readonly string $cancelSubject;
    private readonly string $who;
    private readonly int $pid;
    private readonly JobSigner $signer;
    public int $taken = 0;
    public int $answered = 0;

    public function __construct(
        private readonly Connection $nats,
        private readonly JobTransport $local,
        private readonly NatsJobsConfig $config,
        JobKeys $keys,
        private readonly int $awaitedSlots,
        private readonly int $durableSlots,
        private readonly LoggerInterface $logger,
    ) {
        $this->stop = new CancellationSource();
        $this->signer = new JobSigner($keys);
        $this->pid = (int) \getmypid();
        $this->who = \gethostname() . ':' . $this->pid;
        $this->cancelSubject = $config->subjectPrefix . '.cancel.' . \bin2hex(\random_bytes(8));
    }

    /** Sets up the durable stream and consumer (idempotent) and starts taking tasks. */
    public function start(): void
    {
        if ($this->durableSlots > 0) {
            $js = $this->nats->jetStream();
            $js->ensureStream(NatsTransport::streamConfig($this->config));
            $js->createConsumer($this->config->stream, new ConsumerConfig(
                $this->config->consumer,
                $this->config->ackWait,
                $this->config->maxDeliver,
                $this->config->durableSubject(),
                description: 'Bobbin job workers (bin/bobbin jobs-worker)',
            ));
        }
        $cancels = $this->nats->subscribe($this->cancelSubject);
        $this->slots[] = Async::run(function () use ($cancels): void {
            try {
                while (!$this->stop->isRequested()) {
                    $cancel = $cancels->next(null, $this->stop);
                    if ($cancel->status() !== null) {
                        continue; // the server's "no responders" for an alive sent to a caller that is gone: no cancel
                    }
                    try {
                        $this->held[$this->signer->openCancel($cancel->payload)]?->withdraw->cancel();
                    } catch (JobAuthenticationException $refused) {
                        Refusals::shared()->record($refused, 'a cancel on ' . $cancel->subject, self::sourceOf($cancel->subject, $cancel->replyTo));
                    }
                }
            } catch (CancelledException | SubscriptionClosedException) {
                $cancels->unsubscribe();
            }
        });
        for ($i = 0; $i < $this->awaitedSlots; $i++) {
            $this->slots[] = Async::run($this->awaitedSlot(...));
        }
        for ($i = 0; $i < $this->durableSlots; $i++) {
            $this->slots[] = Async::run($this->durableSlot(...));
        }
        $this->heartbeat = Timer::every($this->config->heartbeat, $this->beat(...))->unreference();
        $this->nats->flush();
    }

    /** Stops taking tasks and waits (up to $timeout s) for those held to be answered. */
    public function stop(float $timeout): void
    {
        $this->stop->cancel();
        $deadline = \microtime(true) + $timeout;
        foreach ($this->slots as $slot) {
            try {
                $slot->await(new \Bobbin\Async\TimeoutCancellation(\max(0.001, $deadline - \microtime(true))));
            } catch (\Throwable $error) {
                if (\microtime(true) >= $deadline) {
                    $this->logger->warning('Tasks still held after {s} s of stopping: {count}', ['s' => $timeout, 'count' => \count($this->held)]);
                    break;
                }
                $this->logger->error('A job slot ended with {error}', ['error' => $error->getMessage()]);
            }
        }
        $this->heartbeat?->cancel();
        try {
            $this->nats->flush(2.0);
        } catch (NatsException) {
        }
    }

    public function held(): int
    {
        return \count($this->held);
    }

    /**
     * One free slot for awaited tasks: a queue-group subscription until its first message, again
     * and again. The server may pick it for more before it sees the UNSUB: those are drained and
     * answered "busy", and their callers offer them again (to a worker with room).
     */
    private function awaitedSlot(): void
    {
        while (!$this->stop->isRequested()) {
            $subscription = $this->nats->subscribe($this->config->awaitedSubject(), $this->config->queueGroup);
            try {
                $message = $subscription->next(null, $this->stop);
            } catch (CancelledException) {
                $this->bounceRest($subscription);

                return;
            } catch (SubscriptionClosedException) {
                return; // the connection closed
            }
            Async::run(fn () => $this->bounceRest($subscription));
            $this->runAwaited($message);
        }
    }

    private function bounceRest(Subscription $subscription): void
    {
        try {
            $subscription->drain(5.0);
        } catch (NatsException) {
            // the connection broke: what was in flight is lost with it, and its callers are told so
        }
        while (($extra = $subscription->tryNext()) !== null) {
            $task = $this->openTask($extra, (string) $extra->replyTo);
            if ($extra->replyTo !== null && $task !== null) {
                $this->answer($extra->replyTo, $task, RemoteWire::busy());
            }
        }
    }

    /** One slot for durable tasks: pulls one at a time from the consumer. */
    private function durableSlot(): void
    {
        $puller = $this->nats->jetStream()->pullConsumer($this->config->stream, $this->config->consumer);
        try {
            while (!$this->stop->isRequested()) {
                try {
                    $batch = $puller->fetch(1, self::FETCH_SECONDS, $this->stop);
                } catch (CancelledException) {
                    return; // a task delivered now is never acked: JetStream delivers it again after the ack wait
                } catch (NatsException $error) {
                    $this->logger->warning('Fetching durable tasks failed: {error}', ['error' => $error->getMessage()]);
                    try {
                        Async::delay(1.0, $this->stop);
                    } catch (CancelledException) {
                        return;
                    }
                    continue;
                }
                foreach ($batch as $message) {
                    $this->runDurable($message);
                }
            }
        } finally {
            $puller->close();
        }
    }

    private function runAwaited(Message $message): void
    {
        $this->taken++;
        $replyTo = $message->replyTo;
        if ($replyTo === null) {
            $this->logger->warning('A task on {subject} without a reply subject was dropped', ['subject' => $message->subject]);

            return;
        }
        // Signed for this reply subject: a copy of it sent with another one is refused.
        $task = $this->openTask($message, $replyTo);
        if ($task === null) {
            return;
        }
        $held = $this->held[$replyTo] = new HeldTask($task->id, $replyTo);
        $this->answer($replyTo, $task, RemoteWire::alive($this->pid, $this->who), $this->cancelSubject);
        try {
            $outcome = $this->local->execute($task, $held->withdraw->token(), new CallbackObserver(function (int $pid) use ($replyTo, $task): void {
                $this->answer($replyTo, $task, RemoteWire::started($pid));
            }));
            $this->answer($replyTo, $task, RemoteWire::outcome($outcome));
        } catch (JobWorkerCrashedException $crash) {
            $this->answer($replyTo, $task, RemoteWire::crashed($crash->getMessage()));
        } catch (JobTimeoutException $timeout) {
            $this->answer($replyTo, $task, RemoteWire::timedOut($timeout->getMessage()));
        } catch (CancelledException) {
            // The caller withdrew it: it never ran (or ran and nobody waits for it).
        } catch (\Throwable $error) {
            $this->answer($replyTo, $task, RemoteWire::refused($error->getMessage()));
        } finally {
            unset($this->held[$replyTo]);
        }
    }

    private function runDurable(JetStreamMessage $message): void
    {
        $this->taken++;
        $replyTo = $message->header('Bobbin-Reply');
        $task = $this->openTask($message->message, (string) $replyTo, durable: true);
        if ($task === null || $task->idempotencyKey === null) {
            $message->term(); // it would be refused on every delivery

            return;
        }
        $attempt = $message->metadata->delivered;
        $key = '#' . $message->metadata->streamSequence;
        $this->held[$key] = new HeldTask($task->id, $replyTo, $message);
        if ($replyTo !== null) {
            $this->answer($replyTo, $task, RemoteWire::alive($this->pid, $this->who));
        }
        try {
            $outcome = $this->local->execute($task->delivery($attempt), null, new CallbackObserver(function (int $pid) use ($replyTo, $task): void {
                if ($replyTo !== null) {
                    $this->answer($replyTo, $task, RemoteWire::started($pid));
                }
            }));
            if ($replyTo !== null) {
                $this->answer($replyTo, $task, RemoteWire::outcome($outcome));
            }
            $message->ack(); // only once the result is out: a death before this runs the task again
        } catch (JobWorkerCrashedException $crash) {
            if ($attempt < $this->config->maxDeliver) {
                $this->logger->warning('A job worker died running the durable {task} (delivery {n}); it goes back to the queue', ['task' => $task->class, 'n' => $attempt]);
                $message->nak();
            } else {
                $message->term();
                if ($replyTo !== null) {
                    $this->answer($replyTo, $task, RemoteWire::crashed(\sprintf('%s (delivery %d of at most %d: given up)', $crash->getMessage(), $attempt, $this->config->maxDeliver)));
                }
            }
        } catch (JobTimeoutException $timeout) {
            $message->term(); // it would overrun again
            if ($replyTo !== null) {
                $this->answer($replyTo, $task, RemoteWire::timedOut($timeout->getMessage()));
            }
        } catch (\Throwable $error) {
            $this->logger->warning('The durable {task} could not run here ({error}); it goes back to the queue', ['task' => $task->class, 'error' => $error->getMessage()]);
            $message->nak(1.0);
        } finally {
            unset($this->held[$key]);
        }
    }

    /** Every heartbeat: "alive" to the caller of every task held, and durable ones kept in progress. */
    private function beat(): void
    {
        foreach ($this->held as $held) {
            try {
                if ($held->replyTo !== null) {
                    $alive = $this->signer->sealReply($held->taskId, RemoteWire::alive($this->pid, $this->who), $this->config->replyDeadline(\microtime(true)));
                    $this->nats->publish($held->replyTo, $alive, null, $this->cancelSubject);
                }
                if ($held->message !== null && !$held->message->isSettled()) {
                    $held->message->inProgress();
                }
            } catch (NatsException) {
                // reconnecting: the next beat goes out, or the caller counts this host dead
            }
        }
    }

    /**
     * The task in $message once its signature (for $replyTo) checks out and it decodes; null when
     * it does not: counted, logged once per source, and never answered (anyone may have sent it).
     */
    private function openTask(Message $message, string $replyTo, bool $durable = false): ?EncodedTask
    {
        try {
            return RemoteWire::decodeTask($this->signer->openTask($message->payload, $replyTo));
        } catch (JobAuthenticationException $refused) {
            Refusals::shared()->record($refused, 'a task on ' . $message->subject, self::sourceOf($message->subject, $durable ? $replyTo : $message->replyTo));
        } catch (JobProtocolException $malformed) {
            // Signed by a holder of the key, yet malformed: a bug or another version, not an attack.
            $this->logger->error('A signed task on {subject} is malformed: {error}', ['subject' => $message->subject, 'error' => $malformed->getMessage()]);
        }

        return null;
    }

    /**
     * Who sent a message, as far as NATS tells: the inbox prefix of the subject its answers go
     * to names the caller's connection (for a durable task that is its Bobbin-Reply header: its
     * own reply subject is JetStream's ack).
     */
    private static function sourceOf(string $subject, ?string $reply): string
    {
        if ($reply === null || $reply === '') {
            return 'a publisher on ' . $subject . ' (no reply subject)';
        }
        $cut = \strrpos($reply, '.');

        return 'reply subject ' . ($cut === false ? $reply : \substr($reply, 0, $cut) . '.*');
    }

    private function answer(string $replyTo, EncodedTask $task, string $body, ?string $reply = null): void
    {
        try {
            $this->nats->publish($replyTo, $this->signer->sealReply($task->id, $body, $this->config->replyDeadline(\microtime(true))), null, $reply);
            $this->answered++;
        } catch (PayloadTooLargeException $tooLarge) {
            $this->answer($replyTo, $task, RemoteWire::refused('The answer is too large for NATS: ' . $tooLarge->getMessage()));
        } catch (NatsException $error) {
            $this->logger->warning('Cannot answer on {subject}: {error}', ['subject' => $replyTo, 'error' => $error->getMessage()]);
        }
    }
}
