<?php

declare(strict_types=1);

namespace Bobbin\Process;

/**
 * The master's HTTP workers by pid, and what it asks of all of them at once: their channels
 * to poll, how many of a generation are up, a signal, their part of the status, a metrics
 * collect. Apart from Master so that its decisions (when to spawn, drain, reload) read as
 * decisions, not as loops over a map.
 */
final class WorkerRoster
{
    /** @var array<int, WorkerHandle> by pid */
    private array $workers = [];

    public function add(WorkerHandle $worker): void
    {
        $this->workers[$worker->pid] = $worker;
    }

    public function get(int $pid): ?WorkerHandle
    {
        return $this->workers[$pid] ?? null;
    }

    public function remove(int $pid): void
    {
        unset($this->workers[$pid]);
    }

    /** @return array<int, WorkerHandle> by pid */
    public function all(): array
    {
        return $this->workers;
    }

    public function isEmpty(): bool
    {
        return $this->workers === [];
    }

    public function count(): int
    {
        return \count($this->workers);
    }

    /** @return list<resource> the master's ends of the channels still open, for its poll */
    public function channels(): array
    {
        $channels = [];
        foreach ($this->workers as $worker) {
            if (\is_resource($worker->channel)) {
                $channels[] = $worker->channel;
            }
        }

        return $channels;
    }

    public function countReady(int $generation): int
    {
        $count = 0;
        foreach ($this->workers as $worker) {
            if ($worker->generation === $generation && $worker->state === WorkerState::Ready) {
                $count++;
            }
        }

        return $count;
    }

    /** Workers of $generation booting or ready: retiring and draining ones are being replaced. */
    public function countActive(int $generation): int
    {
        $count = 0;
        foreach ($this->workers as $worker) {
            if ($worker->generation === $generation && ($worker->state === WorkerState::Booting || $worker->state === WorkerState::Ready)) {
                $count++;
            }
        }

        return $count;
    }

    public function signalAll(int $signal): void
    {
        foreach ($this->workers as $worker) {
            $worker->signal($signal);
        }
    }

    /** @return list<array<string, mixed>> one entry per worker, for the status file and /status.json */
    public function describe(float $now): array
    {
        $workers = [];
        foreach ($this->workers as $worker) {
            $workers[] = $worker->describe($now);
        }

        return $workers;
    }

    /**
     * Sends a collect line to every worker that can answer (a scrape of /metrics or
     * /status.json); returns the pids asked.
     *
     * @return list<int>
     */
    public function askForMetrics(int $id): array
    {
        $asked = [];
        foreach ($this->workers as $worker) {
            if ($worker->state !== WorkerState::Booting && $worker->send(WorkerMessage::collect($id))) {
                $asked[] = $worker->pid;
            }
        }

        return $asked;
    }

    /**
     * In a forked child (a new worker, a job worker): closes its copies of the master's ends and
     * forgets the workers. Holding a sibling's master end would hide the master's death from it.
     */
    public function forgetInChild(): void
    {
        foreach ($this->workers as $worker) {
            $worker->closeChannel();
        }
        $this->workers = [];
    }
}
