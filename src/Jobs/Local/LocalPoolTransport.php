<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Local;

use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Async\OwnsResources;
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

    private const EAGAIN = 11;
    private const CONNECT_TIMEOUT_SECONDS = 5.0;
    private const LONGEST_PAUSE_SECONDS = 0.05;

    /**
     * Seconds a task stays valid after it was sent: it may wait in the accept queue as long as its
     * caller waits. Replays need the socket, which only this user can reach.
     */
    private const TASK_VALIDITY_SECONDS = 86_400.0;

    private readonly JobSigner $signer;

    /** @param JobKeys $keys the pool's (generated per server start; JobPoolConfig::$keys) */
    public function __construct(private readonly string $socketPath, JobKeys $keys, private readonly int $maxPayload = 64 * 1024 * 1024)
    {
        $this->signer = new JobSigner($keys);
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
        $pause = 0.001;
        while (true) {
            $errno = 0;
            $errstr = '';
            $stream = @\stream_socket_client(
                'unix://' . $this->socketPath,
                $errno,
                $errstr,
                self::CONNECT_TIMEOUT_SECONDS,
                \STREAM_CLIENT_CONNECT | \STREAM_CLIENT_ASYNC_CONNECT,
            );
            if ($stream !== false) {
                \stream_set_blocking($stream, false);
                \stream_set_read_buffer($stream, 0);
                \stream_set_write_buffer($stream, 0);

                return $stream;
            }
            if ($errno !== self::EAGAIN) {
                throw new JobWorkersUnavailableException(\sprintf(
                    'Cannot reach the job workers at %s: %s',
                    $this->socketPath,
                    $errstr !== '' ? $errstr : "error $errno",
                ));
            }
            // The accept queue is full (every process's queue together exceeds its backlog): the
            // task waits here instead, which is the same wait, only not first come, first served.
            Async::delay($pause, $cancellation);
            $pause = \min(self::LONGEST_PAUSE_SECONDS, $pause * 2);
        }
    }
}
