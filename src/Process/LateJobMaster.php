<?php

declare(strict_types=1);

namespace Bobbin\Process;

use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Async\CancelledException;
use Bobbin\Async\Future;
use Bobbin\Async\OwnsResources;
use Bobbin\Async\TimeoutException;
use Bobbin\Jobs\Jobs;
use Bobbin\Jobs\JobWorkersUnavailableException;
use Bobbin\Jobs\Local\LocalPoolTransport;
use Bobbin\Jobs\Security\JobKeys;
use Bobbin\Jobs\Transport\JobTransport;
use Bobbin\Jobs\Transport\TaskObserver;
use Bobbin\Jobs\Wire\EncodedTask;
use Bobbin\Jobs\Wire\TaskOutcome;
use Psr\Log\LoggerInterface;

/**
 * The job workers of a single serving process whose application may never submit a task
 * (--single-process, --job-workers=auto): not even their supervisor runs until the first task
 * (a hello server's peak PSS was 2.3 MiB higher with it, docs/HTTP.md). By then this process
 * serves, so the supervisor cannot be a fork of it (a copy holds the listening socket, the clients'
 * connections and the serving heap): it is a fresh `bin/bobbin job-master` started through
 * FreshProcess, told the pool's settings and key over its channel, which binds the job socket and
 * says "ready"; the first task then waits in the socket's queue for the first job worker, as it
 * does with a supervisor started eagerly. Tasks that arrive meanwhile wait for the same start.
 *
 * The channel is how the supervisor learns that this process is gone (kill -9): it stops then,
 * as JobMaster's fork does.
 */
final class LateJobMaster implements JobTransport
{
    use OwnsResources;

    /** The internal command of bin/bobbin that runs the supervisor (Bobbin\Cli\JobMasterCommand). */
    public const COMMAND = 'job-master';

    private ?JobMaster $master = null;
    private bool $stopped = false;
    /** @var Future<mixed>|null the supervisor's start under way */
    private ?Future $launching = null;
    // Made at the first task (like the Jobs, by Jobs::installLazily()): a hello server loads none of its classes.
    private ?LocalPoolTransport $tasks = null;
    private readonly int $owner;

    /**
     * @param list<string> $program PHP's arguments that run `bin/bobbin job-master` (PHP's options, the script, the command)
     * @param array{logLevel: string, memoryLimit: string} $settings what the supervisor and its job workers run with
     */
    private function __construct(
        private readonly JobPoolConfig $config,
        #[\SensitiveParameter] private readonly string $key,
        private readonly FreshProcess $fresh,
        private readonly array $program,
        private readonly array $settings,
        private readonly LoggerInterface $logger,
    ) {
        $this->owner = (int) \getmypid();
    }

    /**
     * null where the supervisor could not be started without the serving process's descriptors
     * (FreshProcess::available()): the caller starts it eagerly instead.
     *
     * @param list<string> $program
     * @param array{logLevel: string, memoryLimit: string} $settings
     */
    public static function create(JobPoolConfig $config, array $program, array $settings, LoggerInterface $logger): ?self
    {
        $fresh = FreshProcess::available();
        if ($fresh === null) {
            return null;
        }
        // A key this process can hand over: the pool's own is kept only as HMAC pads.
        $key = \random_bytes(JobKeys::MIN_BYTES);

        return new self($config->withKeys(new JobKeys($key)), $key, $fresh, $program, $settings, $logger);
    }

    /** What the application's Jobs::shared() sends its tasks through (made at its first call: Jobs::installLazily()). */
    public function jobs(): Jobs
    {
        return new Jobs($this, $this->config->client);
    }

    public function execute(EncodedTask $task, ?Cancellation $cancellation, TaskObserver $observer): TaskOutcome
    {
        if ($this->master === null) {
            $this->start($cancellation);
        }

        $this->tasks ??= new LocalPoolTransport($this->config->socketPath, $this->config->keys, $this->config->client->maxPayload);

        return $this->tasks->execute($task, $cancellation, $observer);
    }

    public function runsInCallingProcess(): bool
    {
        return false;
    }

    /** At the serving process's end: the job workers finish the tasks in hand (up to $timeout s) and exit, with their supervisor. */
    public function stop(float $timeout): void
    {
        $this->stopped = true;
        $this->master?->stop($timeout);
        $this->master = null;
    }

    /** @return array<string, mixed> never the key */
    public function __debugInfo(): array
    {
        return ['socket' => $this->config->socketPath, 'started' => $this->master !== null];
    }

    /**
     * Waits for the supervisor's start, which the first caller sets going and every later one
     * shares: a task on its own, so a caller that gives up (its cancellation, its request's
     * deadline) stops waiting without ending the start for the others.
     *
     * @throws JobWorkersUnavailableException|CancelledException
     */
    private function start(?Cancellation $cancellation): void
    {
        if (\getmypid() !== $this->owner) {
            throw new JobWorkersUnavailableException('The job workers start at the serving process\'s first task; a process forked from it cannot start them');
        }
        if ($this->stopped) {
            throw new JobWorkersUnavailableException('The server stops: no job workers start any more');
        }
        $launching = $this->launching ??= Async::run(function (): void {
            $master = $this->launch();
            if ($this->stopped) { // stop() may run in another fiber while launch() waits
                $master->stop(5.0);
                throw new JobWorkersUnavailableException('The server stops: no job workers start any more');
            }
            $this->master = $master;
        })->ignore(); // its failure reaches every waiter
        try {
            $launching->await($cancellation);
        } catch (JobWorkersUnavailableException $failure) {
            if ($this->launching === $launching) {
                $this->launching = null; // the next task tries again
            }
            throw $failure;
        }
    }

    /** @throws JobWorkersUnavailableException */
    private function launch(): JobMaster
    {
        $pair = \stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        if ($pair === false) {
            throw new JobWorkersUnavailableException('Cannot start the job workers\' supervisor: no socket pair');
        }
        [$mine, $theirs] = $pair;
        try {
            /** @var array<string, string> $environment */
            $environment = \getenv();
            $pid = $this->fresh->spawn($theirs, $this->program, $environment);
        } catch (\RuntimeException $error) {
            \fclose($mine);
            throw new JobWorkersUnavailableException('Cannot start the job workers\' supervisor: ' . $error->getMessage(), 0, $error);
        } finally {
            \fclose($theirs);
        }
        $this->logger->info('First task: starting the job workers\' supervisor (pid {pid})', ['pid' => $pid]);
        \fwrite($mine, \json_encode(['key' => \base64_encode($this->key), 'pool' => $this->config->toTransfer()] + $this->settings, \JSON_THROW_ON_ERROR) . "\n");
        $answer = $this->awaitAnswer($mine, $this->config->bootTimeout + 5.0);
        if ($answer === "ready\n") {
            return JobMaster::adopt($pid, $mine, $this->logger);
        }
        self::abandon($pid, $mine);
        throw new JobWorkersUnavailableException('The job workers\' supervisor did not start: ' . (\str_starts_with($answer, 'failed ') ? \rtrim(\substr($answer, 7)) : 'no answer within ' . ($this->config->bootTimeout + 5.0) . ' s'));
    }

    /**
     * A supervisor that did not start: killed (it has no job worker yet to leave behind) and reaped.
     *
     * @param resource $channel
     */
    private static function abandon(int $pid, $channel): void
    {
        \posix_kill($pid, \SIGKILL);
        \pcntl_waitpid($pid, $status);
        \fclose($channel);
    }

    /**
     * Its first line, waited for on the loop (other requests go on meanwhile); '' when it ended
     * or $timeout passed without one.
     *
     * @param resource $channel
     */
    private function awaitAnswer($channel, float $timeout): string
    {
        \stream_set_blocking($channel, false);
        $deadline = \microtime(true) + $timeout;
        $line = '';
        try {
            while (!\str_contains($line, "\n")) {
                Async::awaitReadable($channel, \max(0.001, $deadline - \microtime(true)));
                $chunk = \fread($channel, 1024);
                if ($chunk === false || ($chunk === '' && \feof($channel))) {
                    return '';
                }
                $line .= $chunk;
            }
        } catch (TimeoutException) {
            return '';
        } finally {
            \stream_set_blocking($channel, true);
        }

        return $line;
    }
}
