<?php

declare(strict_types=1);

namespace Bobbin\Process;

use Bobbin\Jobs\JobsConfig;
use Bobbin\Jobs\Security\JobKeys;

/** The job workers beside the HTTP workers (--job-workers and friends), fixed at start. */
final readonly class JobPoolConfig
{
    private function __construct(
        public int $workers,
        /** A PHP file each job worker requires once before its first task ('' for none). */
        public string $bootstrap,
        /** The unix socket every job worker accepts tasks on. */
        public string $socketPath,
        /** Whether the socket's directory was made for this pool (private, removed at the end). */
        public bool $ownsDirectory,
        /** What every HTTP worker's Jobs uses: its queue, the default time limit, the largest payload. */
        public JobsConfig $client,
        /** --job-max-tasks (as maxRequests) and --job-max-memory. */
        public RecycleLimits $recycle,
        /** Seconds a new job worker may take to run the bootstrap and report ready. */
        public float $bootTimeout,
        /** Seconds between two stats reports of a busy job worker (and --job-max-memory checks: after each task). */
        public float $statsInterval,
        /** Added to the job workers' niceness: the kernel then prefers the HTTP workers when both want a CPU. */
        public int $nice,
        /** Sign every task and answer on the socket; made at start unless the operator gave some (--jobs-key-file), reaching every worker by fork(). */
        public JobKeys $keys,
        /**
         * Fork the job workers when the first task arrives on the socket, not at start: an
         * application that never submits one runs none (--job-workers left at auto).
         */
        public bool $startAtFirstTask,
    ) {
    }

    /** @param string $socketPath '' for a socket in a private directory of its own under the temp dir */
    public static function create(
        int $workers,
        string $bootstrap = '',
        string $socketPath = '',
        JobsConfig $client = new JobsConfig(),
        RecycleLimits $recycle = new RecycleLimits(),
        float $bootTimeout = 60.0,
        float $statsInterval = 1.0,
        int $nice = 0,
        ?JobKeys $keys = null,
        bool $startAtFirstTask = false,
    ): self {
        if ($workers < 1) {
            throw new \InvalidArgumentException('--job-workers must be at least 1 for a pool (0: tasks run in-process)');
        }
        if ($bootstrap !== '' && (!\is_file($bootstrap) || !\is_readable($bootstrap))) {
            throw new \InvalidArgumentException(\sprintf('--job-bootstrap %s does not exist or is not readable', $bootstrap));
        }
        $ownsDirectory = $socketPath === '';
        if ($ownsDirectory) {
            // Only this user may connect: a task is unserialized in the job worker, so whoever can
            // reach the socket can run code there.
            $socketPath = \rtrim(\sys_get_temp_dir(), '/') . '/bobbin-jobs-' . \bin2hex(\random_bytes(6)) . '/jobs.sock';
        }
        if ($nice < 0 || $nice > 19) {
            throw new \InvalidArgumentException('--job-nice must lie between 0 and 19');
        }
        if (\strlen($socketPath) > 107) {
            throw new \InvalidArgumentException(\sprintf('--job-socket %s is longer than a unix socket path may be (107 bytes)', $socketPath));
        }

        return new self($workers, $bootstrap === '' ? '' : (string) \realpath($bootstrap), $socketPath, $ownsDirectory, $client, $recycle, $bootTimeout, $statsInterval, $nice, $keys ?? JobKeys::generate(), $startAtFirstTask);
    }

    /** The same pool signing with $keys (LateJobMaster: keys it can hand to the supervisor it starts). */
    public function withKeys(JobKeys $keys): self
    {
        return new self($this->workers, $this->bootstrap, $this->socketPath, $this->ownsDirectory, $this->client, $this->recycle, $this->bootTimeout, $this->statsInterval, $this->nice, $keys, $this->startAtFirstTask);
    }

    /**
     * Everything but the keys, as JSON-friendly values: what a supervisor started as a program of
     * its own (bin/bobbin job-master) is told over its channel.
     *
     * @return array<string, mixed>
     */
    public function toTransfer(): array
    {
        return [
            'workers' => $this->workers, 'bootstrap' => $this->bootstrap, 'socketPath' => $this->socketPath, 'ownsDirectory' => $this->ownsDirectory,
            'client' => [$this->client->queueCapacity, $this->client->queueWait, $this->client->timeLimit, $this->client->maxPayload],
            'recycle' => [$this->recycle->maxRequests, $this->recycle->maxMemory],
            'bootTimeout' => $this->bootTimeout, 'statsInterval' => $this->statsInterval, 'nice' => $this->nice, 'startAtFirstTask' => $this->startAtFirstTask,
        ];
    }

    /**
     * @param array<mixed> $fields toTransfer()'s
     * @throws \InvalidArgumentException
     */
    public static function fromTransfer(array $fields, JobKeys $keys): self
    {
        $client = \is_array($fields['client'] ?? null) ? \array_values($fields['client']) : [];
        $recycle = \is_array($fields['recycle'] ?? null) ? \array_values($fields['recycle']) : [];
        if (!\is_string($fields['socketPath'] ?? null) || \count($client) !== 4 || \count($recycle) !== 2) {
            throw new \InvalidArgumentException('An incomplete job pool configuration');
        }

        return new self(
            self::int($fields['workers'] ?? 0),
            (string) ($fields['bootstrap'] ?? ''),
            $fields['socketPath'],
            (bool) ($fields['ownsDirectory'] ?? false),
            new JobsConfig(self::int($client[0]), self::float($client[1]), self::float($client[2]), self::int($client[3])),
            new RecycleLimits(self::int($recycle[0]), self::int($recycle[1])),
            self::float($fields['bootTimeout'] ?? 60.0),
            self::float($fields['statsInterval'] ?? 1.0),
            self::int($fields['nice'] ?? 0),
            $keys,
            (bool) ($fields['startAtFirstTask'] ?? false),
        );
    }

    private static function int(mixed $value): int
    {
        return \is_int($value) ? $value : throw new \InvalidArgumentException('A job pool setting is not a whole number');
    }

    private static function float(mixed $value): float
    {
        return \is_int($value) || \is_float($value) ? (float) $value : throw new \InvalidArgumentException('A job pool setting is not a number');
    }
}
