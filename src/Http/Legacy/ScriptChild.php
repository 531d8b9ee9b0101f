<?php

declare(strict_types=1);

namespace Bobbin\Http\Legacy;

use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Async\CancelledException;
use Bobbin\Async\TimeoutException;

/**
 * The worker's view of one script's process: reads the response it sends, kills it past its
 * deadline, and — a forked child of its own — reaps it; a child of the legacy pool
 * (LegacyPool) sends its pid first, and is done with once its connection is closed.
 *
 * @internal used by IsolatedLegacyLoop
 */
final class ScriptChild
{
    private const CHUNK = 65536;
    /** Seconds a child that has answered may take to be gone before it is killed. */
    private const EXIT_GRACE = 2.0;

    private string $buffer = '';
    private ?int $status = null;
    private bool $reaped = false;
    /** Past it the process is killed: set by response(). */
    private float $hardDeadline = \INF;

    /**
     * @param int $pid 0 for a child of the pool, until it has said which
     * @param resource $socket the parent's end of the pair
     */
    public function __construct(private int $pid, private $socket, private readonly bool $pooled = false)
    {
        \stream_set_blocking($socket, false);
        // Unbuffered: each fread() takes up to CHUNK in one read, not in PHP's 8 KiB pieces.
        \stream_set_read_buffer($socket, 0);
    }

    /** @param resource $socket a connection to the pool, the request on its way */
    public static function pooled($socket): self
    {
        return new self(0, $socket, true);
    }

    /**
     * The script's response, or its next frame when the first said more follows (flush()). The request's cancellation tells when it is past its deadline
     * (a TimeoutException): the process is killed then, as it is at $hardDeadline, and the
     * client hears that the outcome is unknown. A client that left does not stop the script: it
     * runs to its end, as under PHP-FPM, and its response goes nowhere.
     *
     * @throws ScriptKilledException past the deadline
     * @throws \RuntimeException when the process ended without a response
     */
    public function response(?Cancellation $cancellation, float $hardDeadline): ScriptResponseFrame
    {
        $this->hardDeadline = $hardDeadline;
        while (true) {
            if ($this->pid === 0 && \strlen($this->buffer) >= 4) {
                $pid = \unpack('N', $this->buffer);
                $this->pid = (int) ($pid[1] ?? 0);
                $this->buffer = \substr($this->buffer, 4);
            }
            $expected = $this->pid === 0 ? null : ScriptResponseFrame::expectedLength($this->buffer);
            if ($expected !== null && \strlen($this->buffer) >= $expected) {
                $frame = \substr($this->buffer, 0, $expected);
                $this->buffer = \substr($this->buffer, $expected);

                return ScriptResponseFrame::decode($frame);
            }
            $remaining = $hardDeadline - \microtime(true);
            if ($remaining <= 0.0) {
                $this->kill();

                throw new ScriptKilledException('The script was still running past --request-timeout; its process was killed');
            }
            try {
                Async::awaitReadable($this->socket, $remaining, $cancellation);
            } catch (CancelledException $cancelled) {
                if ($cancellation !== null && $cancellation->isRequested() && !$cancelled instanceof TimeoutException) {
                    $cancellation = null; // the client left

                    continue;
                }
                $this->kill();

                throw new ScriptKilledException('The script was still running past --request-timeout; its process was killed', 0, $cancelled);
            }
            $chunk = @\fread($this->socket, self::CHUNK);
            if ($chunk === false || $chunk === '') {
                if (\feof($this->socket) || $chunk === false) {
                    $status = $this->reap();

                    throw new \RuntimeException(\sprintf('The script\'s process ended without a response (%s)', self::describe($status)));
                }

                continue;
            }
            $this->buffer .= $chunk;
        }
    }

    /** Whether the process is done with, found without waiting: reaped, or (the pool) its connection closed. */
    public function endedAlready(): bool
    {
        if (!$this->reaped) {
            if ($this->pooled) {
                $chunk = @\fread($this->socket, self::CHUNK);
                if ($chunk !== false && !($chunk === '' && \feof($this->socket))) {
                    return false; // still open (bytes after the last frame are dropped: nothing is sent there)
                }
                $this->status = null;
            } else {
                $result = \pcntl_waitpid($this->pid, $status, \WNOHANG);
                if ($result !== $this->pid && $result !== -1) {
                    return false;
                }
                $this->status = $result === -1 ? null : $status;
            }
            $this->reaped = true;
            if (\is_resource($this->socket)) {
                \fclose($this->socket);
            }
        }

        return true;
    }

    /** Waits (without blocking the loop) for the process to be gone; its wait status, null if unknown. */
    public function reap(): ?int
    {
        if ($this->reaped) {
            return $this->status;
        }
        if ($this->pooled) {
            // The pool's process goes on to its next request once it closes the connection
            // (a script that called fastcgi_finish_request() runs on after its response); the
            // pool replaces one that died.
            $this->awaitClose();
            $this->reaped = true;
            if (\is_resource($this->socket)) {
                \fclose($this->socket);
            }

            return null;
        }
        $delay = 0.0005;
        $waited = 0.0;
        while (true) {
            $result = \pcntl_waitpid($this->pid, $status, \WNOHANG);
            if ($result === $this->pid || $result === -1) {
                // -1: reaped elsewhere (a process-wide waitpid of the same process)
                $this->reaped = true;
                $this->status = $result === -1 ? null : $status;
                if (\is_resource($this->socket)) {
                    \fclose($this->socket);
                }

                return $this->status;
            }
            if ($waited >= self::EXIT_GRACE) {
                $this->kill();
            }
            Async::delay($delay);
            $waited += $delay;
            $delay = \min(0.05, $delay * 2);
        }
    }

    /** Until the pool's process closes the connection, or is killed past the deadline. */
    private function awaitClose(): void
    {
        while (\is_resource($this->socket)) {
            $chunk = @\fread($this->socket, self::CHUNK);
            if ($chunk === false || \feof($this->socket)) {
                return;
            }
            if ($chunk !== '') {
                continue; // nothing is sent after the last frame; a broken process's bytes are dropped
            }
            $remaining = $this->hardDeadline - \microtime(true);
            try {
                if ($remaining <= 0.0) {
                    throw new TimeoutException('past the deadline');
                }
                Async::awaitReadable($this->socket, $remaining);
            } catch (CancelledException) {
                $this->kill();

                return;
            }
        }
    }

    /** SIGKILL, unless reaped already (a streamed body dropped before the script ended). */
    public function kill(): void
    {
        if (!$this->reaped && $this->pid > 0) {
            \posix_kill($this->pid, \SIGKILL);
        }
    }

    private static function describe(?int $status): string
    {
        return match (true) {
            $status === null => 'its status is unknown',
            \pcntl_wifsignaled($status) => 'killed by signal ' . \pcntl_wtermsig($status),
            default => 'exit code ' . \pcntl_wexitstatus($status),
        };
    }
}
