<?php

declare(strict_types=1);

namespace Bobbin\Process;

use Bobbin\Async\Async;
use Bobbin\Async\OwnsResources;
use Bobbin\Async\StreamClosedException;
use Bobbin\Async\StreamWatcher;
use Closure;

/**
 * The worker's end of its socket pair with the master: small JSON lines both ways, and
 * end-of-file in when the master is gone (killed with -9), which makes an orphaned worker stop
 * by itself.
 */
final class WorkerChannel
{
    use OwnsResources;

    private ?StreamWatcher $watcher = null;
    /** Bytes of lines that did not fit the socket yet. */
    private string $pending = '';

    /** @param resource $socket */
    public function __construct(private $socket)
    {
        \stream_set_blocking($this->socket, false);
        \stream_set_write_buffer($this->socket, 0);
    }

    /**
     * Never blocking: a line is usually far below the socket buffer and goes out at once; what
     * does not fit (a large metrics reply to a busy master) is written by a fiber as the master
     * reads. False when the master's end is gone.
     */
    public function send(WorkerMessage $message): bool
    {
        if (!\is_resource($this->socket)) {
            return false;
        }
        $line = $message->encode();
        if ($this->pending !== '') {
            $this->pending .= $line;

            return true;
        }
        $written = @\fwrite($this->socket, $line);
        if ($written === \strlen($line)) {
            return true;
        }
        if ($written === false) {
            return false;
        }
        $this->pending = \substr($line, $written);
        Async::run($this->flushPending(...))->ignore();

        return true;
    }

    /**
     * The last line of a process that is ending (its loop may never run again: a shutdown
     * function after exit() or a fatal error): written at once, blocking up to a second, after
     * whatever earlier lines still wait. False when it did not all go.
     */
    public function sendLast(WorkerMessage $message): bool
    {
        if (!\is_resource($this->socket)) {
            return false;
        }
        $bytes = $this->pending . $message->encode();
        $this->pending = ''; // a flushing fiber, if it ever wakes, finds nothing left to write
        \stream_set_blocking($this->socket, true);
        \stream_set_timeout($this->socket, 1);
        while ($bytes !== '') {
            $written = @\fwrite($this->socket, $bytes);
            if ($written === false || $written === 0) {
                return false;
            }
            $bytes = \substr($bytes, $written);
        }
        \stream_set_blocking($this->socket, false);

        return true;
    }

    private function flushPending(): void
    {
        $watcher = $this->watcher ??= new StreamWatcher($this->socket); // one reader, one writer
        try {
            while ($this->pending !== '' && \is_resource($this->socket)) {
                $watcher->awaitWritable(5.0);
                $written = @\fwrite($this->socket, $this->pending);
                if ($written === false) {
                    break;
                }
                $this->pending = (string) \substr($this->pending, $written);
            }
        } catch (\Throwable) {
            // The master is gone or stuck: nothing more to tell it.
        }
        $this->pending = '';
    }

    /**
     * Reads what the master sends, until its end closes.
     *
     * @param Closure(): void $onGone runs once, when the master's end closes
     * @param (Closure(WorkerMessage): void)|null $onMessage receives each line the master sends
     */
    public function listen(Closure $onGone, ?Closure $onMessage = null): void
    {
        $watcher = $this->watcher ??= new StreamWatcher($this->socket);
        $socket = $this->socket;
        Async::run(static function () use ($watcher, $socket, $onGone, $onMessage): void {
            $buffer = '';
            try {
                while (true) {
                    $watcher->awaitReadable();
                    $data = @\fread($socket, 65536);
                    if ($data === false || ($data === '' && \feof($socket))) {
                        break;
                    }
                    $buffer .= $data;
                    while (($end = \strpos($buffer, "\n")) !== false) {
                        $message = WorkerMessage::decode(\substr($buffer, 0, $end));
                        $buffer = \substr($buffer, $end + 1);
                        if ($message !== null && $onMessage !== null) {
                            $onMessage($message);
                        }
                    }
                    if (\strlen($buffer) > 65536) {
                        $buffer = ''; // not our protocol
                    }
                }
            } catch (StreamClosedException) {
                return;
            }
            $onGone();
        })->ignore();
    }

    public function close(): void
    {
        $this->watcher?->close();
        if (\is_resource($this->socket)) {
            \fclose($this->socket);
        }
    }
}
