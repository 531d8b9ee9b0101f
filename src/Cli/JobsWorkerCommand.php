<?php

declare(strict_types=1);

namespace Bobbin\Cli;

use Bobbin\Platform\RequiredExtension;
use Bobbin\Async\DeferredFuture;
use Bobbin\Log\RateLimitedLogger;
use Bobbin\Log\StderrLogger;
use Bobbin\Jobs\JobsConfig;
use Bobbin\Jobs\Local\LocalPoolTransport;
use Bobbin\Jobs\Nats\NatsJobsConfig;
use Bobbin\Jobs\Nats\RemoteJobServer;
use Bobbin\Jobs\Security\Refusals;
use Bobbin\Nats\Connection;
use Bobbin\Nats\Exception\NatsException;
use Bobbin\Platform\ByteSize;
use Bobbin\Process\CpuCount;
use Bobbin\Process\JobMaster;
use Bobbin\Process\JobPoolConfig;
use Bobbin\Process\MasterFailedException;
use Bobbin\Process\RecycleLimits;
use Bobbin\Process\StopSignals;
use Psr\Log\LogLevel;

/**
 * `bin/bobbin jobs-worker --transport=nats://…`: job workers on this host for tasks submitted on
 * any host (docs/JOBS.md, "Across hosts"). The job workers are the local pool's — forked and
 * supervised by a JobMaster, with --job-bootstrap, crash replacement and recycling — and this
 * process carries tasks between NATS and them (RemoteJobServer) until SIGTERM or SIGINT, then
 * answers what it holds and stops.
 */
final class JobsWorkerCommand
{
    private const OPTIONS = [
        'transport' => 'nats://[user:password@]host:port[?subject=…&heartbeat=…] of the NATS server the tasks come through (required)',
        'jobs-key-file' => JobKeysOption::HELP . ' (required, here or in BOBBIN_JOBS_KEY)',
        'job-workers' => 'job worker processes (default: the number of cores)',
        'job-bootstrap' => 'PHP file each job worker requires once before its first task: the application\'s autoloader and services',
        'prefetch' => 'awaited tasks held beyond the job workers, queued here (default: the number of job workers)',
        'durable-slots' => 'durable (JetStream) tasks held at once (default: the number of job workers; 0: none taken)',
        'job-max-tasks' => 'a job worker is replaced after about this many tasks (0: never)',
        'job-max-memory' => 'a job worker is replaced once its PHP heap exceeds this after a task, e.g. 256M (0: never)',
        'job-nice' => 'added to the job workers\' niceness (0..19)',
        'memory-limit' => 'memory_limit of the job workers (default 256M; -1: none)',
        'drain-timeout' => 'seconds a stop waits for the tasks in hand to be answered (default 60)',
        'pid-file' => 'write this process\'s pid here while running',
        'log-level' => 'least severe level written to stderr (default info)',
    ];

    /**
     * @param resource $stdout
     * @param resource $stderr
     */
    public function __construct(private $stdout, private $stderr)
    {
    }

    /**
     * @param list<string> $arguments
     * @throws UsageException|StartupException
     */
    public function run(array $arguments): int
    {
        $options = self::parse($arguments);
        if (isset($options['help'])) {
            \fwrite($this->stdout, self::help());

            return ExitCode::Ok->value;
        }
        RequiredExtension::checkAll(['pcntl', 'posix'], 'bin/bobbin jobs-worker');
        $transport = $options['transport'] ?? (\getenv('BOBBIN_JOBS_TRANSPORT') ?: '');
        if ($transport === '') {
            throw new UsageException('jobs-worker needs --transport=nats://host:port (try bin/bobbin jobs-worker --help)');
        }
        try {
            $nats = NatsJobsConfig::fromUrl($transport);
        } catch (\InvalidArgumentException | \ValueError $error) {
            throw new UsageException('--transport: ' . $error->getMessage());
        }
        $keys = JobKeysOption::require($options['jobs-key-file'] ?? (\getenv('BOBBIN_JOBS_KEY_FILE') ?: ''), '--transport');
        if (!\function_exists('pcntl_fork') || !\function_exists('posix_kill')) {
            throw new UsageException('jobs-worker needs the pcntl and posix extensions');
        }
        $workers = self::number($options, 'job-workers', CpuCount::detect(), 1);
        $memoryLimit = $options['memory-limit'] ?? '256M';
        if (\preg_match('/^(-1|\d+[KMG]?)$/i', $memoryLimit) !== 1) {
            throw new UsageException('--memory-limit expects a size such as 256M, or -1 for none');
        }
        try {
            $pool = JobPoolConfig::create(
                $workers,
                $options['job-bootstrap'] ?? '',
                '',
                new JobsConfig(),
                new RecycleLimits(self::number($options, 'job-max-tasks', 0, 0), ByteSize::parse($options['job-max-memory'] ?? '0')),
                nice: self::number($options, 'job-nice', 0, 0),
            );
        } catch (\InvalidArgumentException $error) {
            throw new UsageException($error->getMessage());
        }
        $drain = (float) ($options['drain-timeout'] ?? 60);
        $pidFile = $options['pid-file'] ?? '';
        \ini_set('memory_limit', $memoryLimit);
        $logger = new RateLimitedLogger(new StderrLogger($options['log-level'] ?? LogLevel::INFO, $this->stderr));
        Refusals::shared()->useLogger($logger);
        try {
            // Forked before this process opens its NATS connection: no job worker holds a copy of it.
            $master = JobMaster::start($pool, $logger);
        } catch (MasterFailedException $failure) {
            throw new StartupException($failure->getMessage(), 0, $failure);
        }
        try {
            try {
                $connection = Connection::connect($nats->connection);
            } catch (NatsException $error) {
                throw new StartupException($error->getMessage(), 0, $error);
            }
            $connection->onError(static function (NatsException $error) use ($logger): void {
                $logger->warning('NATS: {error}', ['error' => $error->getMessage()]);
            });
            $server = new RemoteJobServer(
                $connection,
                // Between this process and its job workers the pool's own key signs (made now, inherited by fork()).
                new LocalPoolTransport($pool->socketPath, $pool->keys, $pool->client->maxPayload),
                $nats,
                $keys,
                $workers + self::number($options, 'prefetch', $workers, 0),
                self::number($options, 'durable-slots', $workers, 0),
                $logger,
            );
            try {
                $server->start();
            } catch (NatsException $error) {
                throw new StartupException('Cannot take jobs from NATS: ' . $error->getMessage(), 0, $error);
            }
            if ($pidFile !== '') {
                \file_put_contents($pidFile, \getmypid() . "\n");
            }
            /** @var DeferredFuture<null> $stopped */
            $stopped = new DeferredFuture();
            $signals = new StopSignals(static function (int $signal) use ($stopped, $logger): void {
                $logger->info('Received signal {signal}; answering the tasks in hand, then stopping', ['signal' => $signal]);
                $stopped->complete();
            });
            $logger->info('Taking jobs from {url} ({subject}, stream {stream}) with {n} job workers (pid {pid}, job master {master})', [
                'url' => $nats->connection->describe(),
                'subject' => $nats->awaitedSubject(),
                'stream' => $nats->stream,
                'n' => $workers,
                'pid' => \getmypid(),
                'master' => $master->pid,
            ]);
            $stopped->future()->await();
            $server->stop($drain);
            $signals->remove();
            $connection->close();
            $logger->info('Stopped after {n} tasks; {refused} messages refused', ['n' => $server->taken, 'refused' => Refusals::shared()->total()]);
        } finally {
            $master->stop(5.0);
            if ($pidFile !== '') {
                @\unlink($pidFile);
            }
        }

        return ExitCode::Ok->value;
    }

    public static function help(): string
    {
        $lines = [
            'Usage: bin/bobbin jobs-worker --transport=nats://host:port [options]',
            '',
            'Runs job workers on this host for tasks submitted over NATS by servers started with',
            '--jobs-transport=nats://… (docs/JOBS.md). SIGTERM or SIGINT stops taking tasks, answers those in hand, and exits.',
            '',
            'Options:',
        ];
        \array_push($lines, ...CommandLine::helpLines(\array_map(static fn (string $help): array => ['', $help], self::OPTIONS), false));

        return \implode("\n", $lines) . "\n";
    }

    /**
     * @param list<string> $arguments
     * @return array<string, string>
     * @throws UsageException
     */
    private static function parse(array $arguments): array
    {
        $parsed = (new CommandLine('jobs-worker', \array_fill_keys(\array_keys(self::OPTIONS), 'string')))->parse($arguments);

        return $parsed->help ? ['help' => '1'] : $parsed->options;
    }

    /**
     * @param array<string, string> $options
     * @throws UsageException
     */
    private static function number(array $options, string $name, int $default, int $minimum): int
    {
        $value = $options[$name] ?? null;
        if ($value === null) {
            return $default;
        }
        if (!\ctype_digit(\trim($value)) || (int) $value < $minimum) {
            throw new UsageException(\sprintf('--%s expects a whole number of at least %d', $name, $minimum));
        }

        return (int) $value;
    }
}
