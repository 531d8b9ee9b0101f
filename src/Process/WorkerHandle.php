<?php

declare(strict_types=1);

namespace Bobbin\Process;

use Bobbin\Async\OwnsResources;

/** The master's record of one forked worker and the master's end of their socket pair. */
final class WorkerHandle
{
    use OwnsResources;

    public WorkerState $state = WorkerState::Booting;
    public ?float $readyAt = null;
    public ?WorkerStats $stats = null;
    /** What the worker said when it could not boot. */
    public ?string $bootError = null;
    public int $bootExitCode = 1;
    /** Why the master ended it (recycled, reloaded, stopped, …); '' until it is told to end. */
    public string $endReason = '';
    private string $buffer = '';

    /** @param resource $channel non-blocking */
    public function __construct(
        public readonly int $pid,
        public readonly int $generation,
        public $channel,
        public readonly float $started,
    ) {
    }

    /**
     * Reads what the worker has sent so far.
     *
     * @return list<WorkerMessage>
     */
    public function receive(): array
    {
        if (!\is_resource($this->channel)) {
            return [];
        }
        while (true) {
            $data = @\fread($this->channel, 65536);
            if ($data === false || $data === '') {
                if ($data === false || \feof($this->channel)) {
                    // The worker closed its end (it is exiting): stop selecting on a stream that stays readable.
                    $this->closeChannel();
                }
                break;
            }
            $this->buffer .= $data;
        }
        $messages = [];
        while (($end = \strpos($this->buffer, "\n")) !== false) {
            $message = WorkerMessage::decode(\substr($this->buffer, 0, $end));
            $this->buffer = \substr($this->buffer, $end + 1);
            if ($message !== null) {
                $messages[] = $message;
            }
        }
        if (\strlen($this->buffer) > 1048576) {
            $this->buffer = ''; // Not our protocol; never let it grow the master.
        }

        return $messages;
    }

    /** A line to the worker (a collect): never blocking, lost if its socket is full. */
    public function send(WorkerMessage $message): bool
    {
        if (!\is_resource($this->channel)) {
            return false;
        }
        $line = $message->encode();

        return @\fwrite($this->channel, $line) === \strlen($line);
    }

    /**
     * Whether it had started serving requests by its last report (its stats; a worker that a
     * request ends sends them from its shutdown function): then its death is that request's
     * failure, not a failed boot (RestartPolicy).
     */
    public function hasServed(): bool
    {
        return ($this->stats->requests ?? 0) > 0;
    }

    public function closeChannel(): void
    {
        if (\is_resource($this->channel)) {
            \fclose($this->channel);
        }
    }

    public function signal(int $signal): void
    {
        \posix_kill($this->pid, $signal);
    }

    /** @return array<string, mixed> */
    public function describe(float $now): array
    {
        $stats = $this->stats;

        return [
            'pid' => $this->pid,
            'generation' => $this->generation,
            'state' => $this->state->value,
            'started' => $stats->started ?? $this->started,
            'uptime' => \round($now - ($stats->started ?? $this->started), 1),
            'requests' => $stats->requests ?? 0,
            'inFlight' => $stats->inFlight ?? 0,
            'connections' => $stats->connections ?? 0,
            'memory' => $stats->memory ?? 0,
        ];
    }
}
