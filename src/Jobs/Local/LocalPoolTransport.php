<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Local;

use Bobbin\Async\Cancellation;
use Bobbin\Async\ConnectFailedException;
use Bobbin\Async\ConnectTarget;
use Bobbin\Async\OwnsResources;
use Bobbin\Async\SocketConnector;
use Bobbin\Async\StreamWatcher;
use Bobbin\Jobs\JobException;
use Bobbin\Jobs\JobWorkersUnavailableException;
use Bobbin\Jobs\Security\JobKeys;
use Bobbin\Jobs\Security\JobSigner;
use Bobbin\Jobs\Transport\JobTransport;
use Bobbin\Jobs\Transport\TaskObserver;
use Bobbin\Jobs\Wire\EncodedTask;
use Bobbin\Jobs\Wire\FrameDecoder;
use Bobbin\Jobs\Wire\JobWire;
use Bobbin\Jobs\Wire\TaskOutcome;

/**
 * Job workers on this host, all accepting on one unix socket: a connection per task. The
 * kernel's accept queue is the pool's queue — first come, first served across every HTTP worker
 * — and an idle job worker is simply one that calls accept(). A connection that ends without an
 * answer is a job worker that died; tasks still waiting in the accept queue are untouched by it.
 *
 * Every message is signed (JobSigner) with the pool's key: a job worker unserializes nothing
 * that this side did not sign, and this side reads no result a job worker did not sign for its task.
 */
final class LocalPoolTransport implements JobTransport
{
    use OwnsResources;


    /**
     * Seconds a task stays valid after it was sent: it may wait in the accept queue as long as its
     * caller waits. Replays need the socket, which only this user can reach.
     */
    private const TASK_VALIDITY_SECONDS = 86_400.0;

    private readonly JobSigner $signer;
    private readonly ConnectTarget $target;

    /** @param JobKeys $keys the pool's (generated per server start; JobPoolConfig::$keys) */
    public function __construct(private readonly string $socketPath, JobKeys $keys, private readonly int $maxPayload = 64 * 1024 * 1024)
    {
        $this->signer = new JobSigner($keys);
        $this->target = ConnectTarget::unix($socketPath);
    }

    public function execute(EncodedTask $task, ?Cancellation $cancellation, TaskObserver $observer): TaskOutcome
    {
        $frame = FrameDecoder::frame($this->signer->sealTask(JobWire::task($task), '', \microtime(true) + self::TASK_VALIDITY_SECONDS));
        if (\strlen($frame) - 4 > $this->maxPayload) {
            throw new JobException(\sprintf('The task %s is %d bytes serialized, over the limit of %d', $task->class, \strlen($frame) - 4, $this->maxPayload));
        }
        $stream = $this->connect($cancellation);
        $watcher = new StreamWatcher($stream);
        try {
            return (new TaskCall($stream, $watcher, $task, $this->maxPayload, $this->signer, $this->socketPath))->run($frame, $cancellation, $observer);
        } finally {
            // Closing withdraws a task no worker took yet: the one that accepts it later sees the end and skips it.
            $watcher->close();
            \fclose($stream);
        }
    }

    public function runsInCallingProcess(): bool
    {
        return false;
    }

    /**
     * @return resource
     * @throws JobWorkersUnavailableException
     */
    private function connect(?Cancellation $cancellation)
    {
        // No deadline: a task waits for a free job worker as long as its caller does. While the
        // accept queue is full (every process's queue together exceeds its backlog) the connector
        // keeps trying: the same wait, only not first come, first served.
        try {
            return (new SocketConnector())->connect($this->target, \INF, $cancellation);
        } catch (ConnectFailedException $e) {
            throw new JobWorkersUnavailableException(\sprintf('Cannot reach the job workers at %s: %s', $this->socketPath, $e->getMessage()), 0, $e);
        }
    }
}
