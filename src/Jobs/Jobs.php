<?php

declare(strict_types=1);

namespace Bobbin\Jobs;

use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Async\CancelledException;
use Bobbin\Async\CompositeCancellation;
use Bobbin\Async\Future;
use Bobbin\Async\Lock;
use Bobbin\Async\OwnsResources;
use Bobbin\Async\Semaphore;
use Bobbin\Async\TimeoutCancellation;
use Bobbin\Jobs\Execution\TaskEncoder;
use Bobbin\Jobs\Execution\TaskRunner;
use Bobbin\Jobs\Internal\JobCounters;
use Bobbin\Jobs\Internal\TaskEnd;
use Bobbin\Jobs\Internal\TaskTicket;
use Bobbin\Jobs\Local\LocalPoolTransport;
use Bobbin\Jobs\Nats\NatsJobsConfig;
use Bobbin\Jobs\Nats\NatsTransport;
use Bobbin\Jobs\Security\JobKeys;
use Bobbin\Jobs\Transport\InProcessTransport;
use Bobbin\Jobs\Transport\JobTransport;
use Bobbin\Jobs\Wire\EncodedTask;

/**
 * Sends CPU-heavy tasks to job workers and hands back futures of their results; the calling
 * fiber (and every other one) goes on meanwhile. One per process: Jobs::shared() is the one the
 * server set up (job workers beside the HTTP workers), or, without a server (PHP-FPM, a
 * script), one that runs each task in-process at submit() — the same application code works
 * in both.
 *
 * The queue is bounded: at most JobsConfig::$queueCapacity tasks of this process are queued or
 * running; submit() waits for room beyond that (bounded, cancellable), never drops a task.
 */
final class Jobs
{
    use OwnsResources;

    private static ?self $shared = null;
    /** @var (\Closure(): self)|null makes $shared at the first shared() */
    private static ?\Closure $factory = null;

    private readonly Semaphore $queue;
    private readonly JobCounters $counters;

    public function __construct(private readonly JobTransport $transport, private readonly JobsConfig $config = new JobsConfig())
    {
        $this->queue = new Semaphore($config->queueCapacity);
        $this->counters = new JobCounters($config->queueCapacity);
    }

    /** The jobs of this process: what the server installed, else tasks run in-process. */
    public static function shared(): self
    {
        if (self::$shared === null && self::$factory !== null) {
            [$factory, self::$factory] = [self::$factory, null];
            self::$shared = $factory();
        }

        return self::$shared ??= self::inProcess();
    }

    /** Made by the server (or a test) before the application loads; null forgets it. */
    public static function install(?self $jobs): void
    {
        self::$shared = $jobs;
        self::$factory = null;
    }

    /**
     * As install(), the jobs made by $factory at the first shared(): an application that never
     * asks for them loads none of their classes (a hello server's memory, docs/HTTP.md).
     *
     * @param \Closure(): self $factory
     */
    public static function installLazily(\Closure $factory): void
    {
        self::$shared = null;
        self::$factory = $factory;
    }

    public static function inProcess(JobsConfig $config = new JobsConfig()): self
    {
        return new self(new InProcessTransport(), $config);
    }

    /**
     * Job workers listening on the unix socket at $socketPath (bin/bobbin serve --job-workers),
     * with the pool's keys (made at the server's start, inherited by fork()).
     */
    public static function localPool(string $socketPath, JobKeys $keys, JobsConfig $config = new JobsConfig()): self
    {
        return new self(new LocalPoolTransport($socketPath, $keys, $config->maxPayload), $config);
    }

    /** Job workers on any host, over NATS (bin/bobbin jobs-worker; --jobs-transport=nats://…), with the keys every host shares. */
    public static function nats(NatsJobsConfig $nats, JobKeys $keys, JobsConfig $config = new JobsConfig()): self
    {
        return new self(new NatsTransport($nats, $keys), $config);
    }

    /**
     * Queues $task and returns the future of its result. The task is checked and serialized
     * here, so one that cannot travel is refused at once. When the queue is full this waits for
     * room, up to JobsConfig::$queueWait seconds or until $cancellation.
     *
     * The future fails with TaskFailedException (the task threw), JobWorkerCrashedException,
     * JobTimeoutException, or CancelledException: $cancellation before a worker took the task
     * withdraws it (it never runs); after that the task runs to its end and its result is dropped.
     *
     * @return Future<mixed>
     * @throws TaskNotSerializableException|JobQueueFullException|CancelledException
     */
    public function submit(Task $task, ?Cancellation $cancellation = null): Future
    {
        $cancellation?->throwIfRequested();
        $encoded = TaskEncoder::encode($task, $this->config->timeLimit);
        if ($this->transport->runsInCallingProcess()) {
            // No worker to wait for: run now, so a task nobody awaits still runs, as it would in the pool.
            try {
                return Future::complete($this->execute($encoded, new TaskTicket($this->counters), $cancellation));
            } catch (\Throwable $error) {
                return Future::error($error);
            }
        }
        $permit = $this->queue->tryAcquire() ?? $this->awaitRoom($cancellation);
        $ticket = new TaskTicket($this->counters);

        return Async::run(function () use ($encoded, $ticket, $cancellation, $permit): mixed {
            try {
                return $this->execute($encoded, $ticket, $cancellation);
            } finally {
                $permit->release();
            }
        });
    }

    /**
     * Runs every task and returns their results under the input keys, in input order, with at
     * most $concurrency of them submitted at once (0: the queue's capacity). The first failure is
     * thrown once the tasks already submitted have ended; no new task is submitted after it.
     *
     * @template K of array-key
     * @param iterable<K, Task> $tasks
     * @return array<K, mixed>
     */
    public function map(iterable $tasks, int $concurrency = 0, ?Cancellation $cancellation = null): array
    {
        return Async::map(
            $tasks,
            fn (Task $task): mixed => $this->submit($task, $cancellation)->await(),
            $concurrency > 0 ? $concurrency : $this->config->queueCapacity,
            $cancellation,
        );
    }

    public function statistics(): JobStatistics
    {
        return $this->counters->snapshot();
    }

    public function config(): JobsConfig
    {
        return $this->config;
    }

    private function execute(EncodedTask $encoded, TaskTicket $ticket, ?Cancellation $cancellation): mixed
    {
        try {
            $outcome = $this->transport->execute($encoded, $cancellation, $ticket);
        } catch (JobWorkerCrashedException $crash) {
            $ticket->ended(TaskEnd::Crashed);
            throw $crash;
        } catch (JobTimeoutException $timeout) {
            $ticket->ended(TaskEnd::TimedOut);
            throw $timeout;
        } catch (CancelledException $cancelled) {
            $ticket->ended(TaskEnd::Cancelled);
            throw $cancelled;
        } catch (\Throwable $error) {
            $ticket->ended(TaskEnd::Unavailable);
            throw $error;
        }
        if ($outcome->error !== null) {
            $ticket->ended(TaskEnd::Failed, $outcome->runSeconds);
            throw new TaskFailedException($encoded->class, $outcome->error);
        }
        $ticket->ended(TaskEnd::Completed, $outcome->runSeconds);
        try {
            // The bytes were authenticated by the transport; only what the task declares may be made of them.
            return TaskRunner::unserializeResult($encoded->class, (string) $outcome->result);
        } catch (\UnexpectedValueException $error) {
            throw new JobProtocolException($error->getMessage(), 0, $error);
        }
    }

    /** @throws JobQueueFullException|CancelledException */
    private function awaitRoom(?Cancellation $cancellation): Lock
    {
        $this->counters->waiting++;
        $limit = new TimeoutCancellation($this->config->queueWait);
        try {
            return $this->queue->acquire($cancellation === null ? $limit : new CompositeCancellation($cancellation, $limit));
        } catch (CancelledException $cancelled) {
            if ($cancellation !== null && $cancellation->isRequested()) {
                throw $cancelled;
            }
            $this->counters->rejected++;
            throw new JobQueueFullException(\sprintf(
                'The job queue stayed full (%d tasks queued or running) for %.1f s; nothing was sent',
                $this->config->queueCapacity,
                $this->config->queueWait,
            ));
        } finally {
            $this->counters->waiting--;
            $limit->dispose();
        }
    }
}
