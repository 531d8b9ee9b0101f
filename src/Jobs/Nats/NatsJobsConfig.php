<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Nats;

use Bobbin\Nats\ConnectionConfig;

/**
 * Where and how jobs travel over NATS: the server, the subjects, the JetStream stream and
 * consumer of durable jobs, and the timings that tell a dead job worker from a busy one. Read
 * from the --jobs-transport / --transport URL: nats://host:port?subject=bobbin.jobs&heartbeat=1…
 */
final readonly class NatsJobsConfig
{
    /** How far apart the hosts' clocks may be for a signed deadline to hold (NTP keeps them within milliseconds). */
    public const CLOCK_SKEW_SECONDS = 5.0;

    public function __construct(
        public ConnectionConfig $connection,
        /** Awaited tasks go to PREFIX.run, durable ones to PREFIX.durable. */
        public string $subjectPrefix = 'bobbin.jobs',
        public string $queueGroup = 'bobbin-jobs',
        public string $stream = 'BOBBIN_JOBS',
        public string $consumer = 'bobbin-jobs-workers',
        /** Seconds between a job worker's "alive" messages for each task it holds. */
        public float $heartbeat = 1.0,
        /** Heartbeats missed after which the caller of an awaited task counts its job worker dead. */
        public int $missedHeartbeats = 3,
        /** Seconds JetStream waits for a durable task's ack (kept alive by heartbeats) before it delivers it again. */
        public float $ackWait = 10.0,
        /** Deliveries of a durable task in all before it is given up (its caller gets the crash). */
        public int $maxDeliver = 5,
        /** Seconds a caller waits for a durable task's result (it is stored: it still runs after that). */
        public float $durableWait = 300.0,
        /** Seconds a caller keeps trying while no job worker anywhere takes the task. */
        public float $unavailableAfter = 10.0,
        /** Seconds a stored durable task stays valid after its submit: a worker refuses (and drops) it later, so a copy replayed after that never runs. */
        public float $durableTtl = 86_400.0,
    ) {
        if ($heartbeat <= 0.0 || $missedHeartbeats < 1 || $ackWait <= 0.0 || $durableWait <= 0.0 || $unavailableAfter < 0.0 || $durableTtl <= 0.0) {
            throw new \InvalidArgumentException('The jobs\' NATS timings must be positive');
        }
        if ($maxDeliver < 1) {
            throw new \InvalidArgumentException('A durable task is delivered at least once');
        }
    }

    /**
     * nats://[user:password@]host:port?subject=…&queue=…&stream=…&consumer=…&heartbeat=S&ack_wait=S
     * &max_deliver=N&durable_wait=S&unavailable_after=S&durable_ttl=S, plus the connection's own options (tls…).
     */
    public static function fromUrl(#[\SensitiveParameter] string $url): self
    {
        $query = [];
        \parse_str((string) \parse_url($url, \PHP_URL_QUERY), $query);
        $text = static fn (string $name, string $default): string => isset($query[$name]) && \is_string($query[$name]) && $query[$name] !== '' ? $query[$name] : $default;
        $number = static function (string $name, float $default) use ($query): float {
            $value = $query[$name] ?? null;
            if ($value === null) {
                return $default;
            }
            if (!\is_string($value) || !\is_numeric($value)) {
                throw new \InvalidArgumentException(\sprintf('%s in the jobs\' NATS URL must be a number', $name));
            }

            return (float) $value;
        };

        return new self(
            ConnectionConfig::fromUrl($url, name: 'bobbin-jobs'),
            $text('subject', 'bobbin.jobs'),
            $text('queue', 'bobbin-jobs'),
            $text('stream', 'BOBBIN_JOBS'),
            $text('consumer', 'bobbin-jobs-workers'),
            $number('heartbeat', 1.0),
            (int) $number('missed_heartbeats', 3),
            $number('ack_wait', 10.0),
            (int) $number('max_deliver', 5),
            $number('durable_wait', 300.0),
            $number('unavailable_after', 10.0),
            $number('durable_ttl', 86_400.0),
        );
    }

    public function awaitedSubject(): string
    {
        return $this->subjectPrefix . '.run';
    }

    public function durableSubject(): string
    {
        return $this->subjectPrefix . '.durable';
    }

    /**
     * The deadline signed into an awaited task sent now: a worker takes it only before then. The
     * caller offers it for $unavailableAfter s; CLOCK_SKEW_SECONDS more allow for the hosts' clocks.
     */
    public function awaitedDeadline(float $now): float
    {
        return $now + $this->unavailableAfter + self::CLOCK_SKEW_SECONDS;
    }

    /** The deadline signed into an answer sent now (its caller reads it at once). */
    public function replyDeadline(float $now): float
    {
        return $now + $this->silenceLimit() + self::CLOCK_SKEW_SECONDS;
    }

    /** Seconds of silence after which an awaited task's job worker counts as dead. */
    public function silenceLimit(): float
    {
        return $this->heartbeat * $this->missedHeartbeats + 0.5;
    }
}
