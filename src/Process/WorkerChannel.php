<?php

declare(strict_types=1);

namespace Bobbin\Process;

use Bobbin\Async\Async;
use Bobbin\Async\StreamClosedException;
use Bobbin\Async\StreamWatcher;
use Closure;

/**
 * The worker's end of its socket pair with the master: small JSON lines out, and end-of-file in
 * when the master is gone (killed with -9), which makes an orphaned worker stop by itself.
 */
final class WorkerChannel
{
    private ?StreamWatcher $watcher = null;

    /** @param resource $socket */
    public function __construct(private $socket)
    {
        \stream_set_blocking($this->socket, false);
        \stream_set_write_buffer($this->socket, 0);
    }

    /**
     * Best effort and never blocking: a line is far below the socket buffer, and a master too
     * busy to read loses a stats report, never a request.
     */
    public function send(WorkerMessage $message): bool
    {
        if (!\is_resource($this->socket)) {
            return false;
        }
        $line = $message->encode();

        return @\fwrite($this->socket, $line) === \strlen($line);
    }

    /** @param Closure(): void $onGone runs once, when the master's end closes */
    public function whenMasterGone(Closure $onGone): void
    {
        $this->watcher = new StreamWatcher($this->socket);
        $watcher = $this->watcher;
        $socket = $this->socket;
        Async::run(static function () use ($watcher, $socket, $onGone): void {
            try {
                while (true) {
                    $watcher->awaitReadable();
                    $data = @\fread($socket, 4096);
                    if ($data === false || ($data === '' && \feof($socket))) {
                        break;
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
