<?php

declare(strict_types=1);

namespace Bobbin\Async\Internal;

use Revolt\EventLoop\Suspension;

/**
 * The fibers currently waiting on one stream. Held by the loop callbacks instead of the
 * StreamWatcher itself, so dropping the watcher frees it (and its destructor cancels the
 * callbacks).
 *
 * @internal
 */
final class StreamWaiters
{
    /**
     * Untyped, like $writer (the @var types are the analyser's): a write to a property declared
     * with a class type costs a class check at run time, and these are written twice per wait
     * (docs/ASYNC.md, Rules).
     *
     * @var Suspension<mixed>|null
     */
    public $reader = null;
    /** @var Suspension<mixed>|null */
    public $writer = null;
    /**
     * The cancellation the current read (write) wait runs under, if any: StreamWatcher's one
     * callback per direction ends the wait only when this one is requested.
     *
     * @var \Bobbin\Async\Cancellation|null
     */
    public $readCancellation = null;
    /** @var \Bobbin\Async\Cancellation|null */
    public $writeCancellation = null;

    /** The direct wait in direction $read is over: its cancellation no longer concerns this stream. */
    public function forgetCancellation(bool $read): void
    {
        if ($read) {
            $this->readCancellation = null;
        } else {
            $this->writeCancellation = null;
        }
    }

    public function wakeReader(?\Throwable $error = null): void
    {
        $suspension = $this->reader;
        if ($suspension === null) {
            return;
        }
        $this->reader = null;
        $error === null ? $suspension->resume() : $suspension->throw($error);
    }

    public function wakeWriter(?\Throwable $error = null): void
    {
        $suspension = $this->writer;
        if ($suspension === null) {
            return;
        }
        $this->writer = null;
        $error === null ? $suspension->resume() : $suspension->throw($error);
    }
}
