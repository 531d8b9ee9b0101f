<?php

declare(strict_types=1);

namespace Bobbin\Ipc\Internal;

use Bobbin\Async\Async;
use Bobbin\Async\OwnsResources;
use Bobbin\Async\ReplySource;
use Bobbin\Async\SharedReader;
use Bobbin\Ipc\ConnectionLostException;

/**
 * What every connection to the daemon does alike: it is open until it is released (closed with
 * nobody to tell) or lost (every waiting fiber gets the reason), once; after that each request
 * gets the reason too.
 *
 * The open flag stays a plain property of the connection, read directly on the hot paths; only
 * the rare ends go through the methods here.
 *
 * Answers reach their fibers through an Async\SharedReader (as in Redis and Tarantool): the
 * first waiting fiber reads the connection (readReplies()) for everybody, the codecs hand each
 * answer to the reader's deliver(), and the reading passes on when the reader's own answer is in.
 *
 * @internal
 */
abstract class AbstractConnection implements FramedConnection, ReplySource
{
    use OwnsResources;

    protected readonly SharedReader $reader;
    protected bool $open = true;
    /** Why the connection ended; made into an exception only when somebody is told (lost()). */
    private string $lostWhy = '';
    private ?\Throwable $lostReason = null;
    /** spl_object_id() of the fiber that sent the last request (0: {main}; -1: none yet, a new connection). */
    private int $lastCaller = -1;

    public function __construct()
    {
        $this->reader = new SharedReader();
    }


    final public function isOpen(): bool
    {
        return $this->open;
    }

    final public function close(string $why = 'The IPC connection was closed'): void
    {
        if ($this->somebodyWaits()) {
            $this->lose(new ConnectionLostException($why));
        } else {
            // Nobody to tell: no exception (and its backtrace) for a plain close or reconnect.
            $this->release($why);
        }
    }

    /**
     * Whether the request being made comes from the fiber that made the previous one (or both
     * from {main}), or is the connection's first: only then may it go out alone, at once. A lone
     * caller's answer is usually there before it would wait, so its fiber never suspends: without
     * this, a crowd of fibers resumed in one tick would go one by one, each sending all its
     * requests alone, instead of joining one batch (FiberTurnTakingTest). The first request of a
     * connection has no crowd to split (a reconnect per request, as under PHP-FPM, would
     * otherwise pay a loop turn for each).
     */
    final protected function isSameCaller(): bool
    {
        $fiber = Async::currentFiber();
        $caller = $fiber === null ? 0 : \spl_object_id($fiber);
        $last = $this->lastCaller;
        $this->lastCaller = $caller;

        return $caller === $last || $last === -1;
    }

    /** Whether a fiber waits on this connection (for an answer, or more). */
    protected function somebodyWaits(): bool
    {
        return $this->reader->isReading();
    }

    /** Closes the descriptors and stops the watchers; called once, by release(). */
    abstract protected function releaseResources(): void;

    /** The exception that tells why this connection ended. */
    final protected function lost(): \Throwable
    {
        return $this->lostReason ??= new ConnectionLostException($this->lostWhy);
    }

    /** Ends the connection with $reason, thrown into every waiting fiber. */
    final protected function lose(\Throwable $reason): void
    {
        if (!$this->open) {
            return;
        }
        $this->lostReason = $reason;
        $this->release($reason->getMessage());
        $this->reader->failAll($reason);
    }

    final protected function release(string $why): void
    {
        if (!$this->open) {
            return;
        }
        $this->open = false;
        $this->lostWhy = $why;
        $this->releaseResources();
    }
}
