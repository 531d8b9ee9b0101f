<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Nats;

use Bobbin\Async\Async;
use Bobbin\Async\CancellationSource;
use Bobbin\Async\CancelledException;
use Bobbin\Async\Future;
use Bobbin\Async\Timer;
use Bobbin\Jobs\JobProtocolException;
use Bobbin\Jobs\JobTimeoutException;
use Bobbin\Jobs\JobWorkerCrashedException;
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
 */
final class RemoteJobServer
{
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
    public int $taken = 0;
    public int $answered = 0;

    public function __construct(
        private readonly Connection $nats,
        private readonly JobTransport $local,
        private readonly NatsJobsConfig $config,
        private readonly int $awaitedSlots,
        private readonly int $durableSlots,
        private readonly LoggerInterface $logger,
    ) {
        $this->stop = new CancellationSource();
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
                    $this->held[$cancels->next(null, $this->stop)->payload]?->withdraw->cancel();
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
            if ($extra->replyTo !== null) {
                $this->answer($extra->replyTo, RemoteWire::busy());
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
        try {
            $task = RemoteWire::decodeTask($message->payload);
        } catch (JobProtocolException $error) {
            $this->answer($replyTo, RemoteWire::refused('A malformed task: ' . $error->getMessage()));

            return;
        }
        $held = $this->held[$replyTo] = new HeldTask($replyTo);
        $this->answer($replyTo, RemoteWire::alive($this->pid, $this->who), $this->cancelSubject);
        try {
            $outcome = $this->local->execute($task, $held->withdraw->token(), new CallbackObserver(function (int $pid) use ($replyTo): void {
                $this->answer($replyTo, RemoteWire::started($pid));
            }));
            $this->answer($replyTo, RemoteWire::outcome($outcome));
        } catch (JobWorkerCrashedException $crash) {
            $this->answer($replyTo, RemoteWire::crashed($crash->getMessage()));
        } catch (JobTimeoutException $timeout) {
            $this->answer($replyTo, RemoteWire::timedOut($timeout->getMessage()));
        } catch (CancelledException) {
            // The caller withdrew it: it never ran (or ran and nobody waits for it).
        } catch (\Throwable $error) {
            $this->answer($replyTo, RemoteWire::refused($error->getMessage()));
        } finally {
            unset($this->held[$replyTo]);
        }
    }

    private function runDurable(JetStreamMessage $message): void
    {
        $this->taken++;
        $replyTo = $message->header('Bobbin-Reply');
        try {
            $task = RemoteWire::decodeTask($message->payload());
        } catch (JobProtocolException $error) {
            $message->term();
            if ($replyTo !== null) {
                $this->answer($replyTo, RemoteWire::refused('A malformed task: ' . $error->getMessage()));
            }

            return;
        }
        $attempt = $message->metadata->delivered;
        $key = '#' . $message->metadata->streamSequence;
        $this->held[$key] = new HeldTask($replyTo, $message);
        if ($replyTo !== null) {
            $this->answer($replyTo, RemoteWire::alive($this->pid, $this->who));
        }
        $delivered = new EncodedTask(
            $task->class,
            \serialize(new DeliveredTask((string) $message->header('Nats-Msg-Id'), $attempt, $task->class, $task->payload)),
            $task->timeLimit,
        );
        try {
            $outcome = $this->local->execute($delivered, null, new CallbackObserver(function (int $pid) use ($replyTo): void {
                if ($replyTo !== null) {
                    $this->answer($replyTo, RemoteWire::started($pid));
                }
            }));
            if ($replyTo !== null) {
                $this->answer($replyTo, RemoteWire::outcome($outcome));
            }
            $message->ack(); // only once the result is out: a death before this runs the task again
        } catch (JobWorkerCrashedException $crash) {
            if ($attempt < $this->config->maxDeliver) {
                $this->logger->warning('A job worker died running the durable {task} (delivery {n}); it goes back to the queue', ['task' => $task->class, 'n' => $attempt]);
                $message->nak();
            } else {
                $message->term();
                if ($replyTo !== null) {
                    $this->answer($replyTo, RemoteWire::crashed(\sprintf('%s (delivery %d of at most %d: given up)', $crash->getMessage(), $attempt, $this->config->maxDeliver)));
                }
            }
        } catch (JobTimeoutException $timeout) {
            $message->term(); // it would overrun again
            if ($replyTo !== null) {
                $this->answer($replyTo, RemoteWire::timedOut($timeout->getMessage()));
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
                    $this->nats->publish($held->replyTo, RemoteWire::alive($this->pid, $this->who), null, $this->cancelSubject);
                }
                if ($held->message !== null && !$held->message->isSettled()) {
                    $held->message->inProgress();
                }
            } catch (NatsException) {
                // reconnecting: the next beat goes out, or the caller counts this host dead
            }
        }
    }

    private function answer(string $replyTo, string $payload, ?string $reply = null): void
    {
        try {
            $this->nats->publish($replyTo, $payload, null, $reply);
            $this->answered++;
        } catch (PayloadTooLargeException $tooLarge) {
            $this->answer($replyTo, RemoteWire::refused('The answer is too large for NATS: ' . $tooLarge->getMessage()));
        } catch (NatsException $error) {
            $this->logger->warning('Cannot answer on {subject}: {error}', ['subject' => $replyTo, 'error' => $error->getMessage()]);
        }
    }
}
