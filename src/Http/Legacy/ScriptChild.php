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
        return $this->reaped || ($this->pooled ? $this->connectionClosed() : $this->reapedNow());
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

            return null;
        }
        $delay = 0.0005;
        $waited = 0.0;
        while (!$this->reapedNow()) {
            if ($waited >= self::EXIT_GRACE) {
                $this->kill();
            }
            Async::delay($delay);
            $waited += $delay;
            $delay = \min(0.05, $delay * 2);
        }

        return $this->status;
    }

    /** A forked child: reaped if it has ended (-1: reaped elsewhere, by a process-wide waitpid). */
    private function reapedNow(): bool
    {
        $result = \pcntl_waitpid($this->pid, $status, \WNOHANG);
        if ($result !== $this->pid && $result !== -1) {
            return false;
        }
        $this->markReaped($result === -1 ? null : $status);

        return true;
    }

    /** A pool's process: done with once it has closed the connection (what it sent after the last frame is dropped). */
    private function connectionClosed(): bool
    {
        $chunk = @\fread($this->socket, self::CHUNK);
        if ($chunk !== false && !($chunk === '' && \feof($this->socket))) {
            return false;
        }
        $this->markReaped(null);

        return true;
    }

    /** Until the pool's process closes the connection, or is killed past the deadline. */
    private function awaitClose(): void
    {
        while (!$this->connectionClosed()) {
            $remaining = $this->hardDeadline - \microtime(true);
            try {
                if ($remaining <= 0.0) {
                    throw new TimeoutException('past the deadline');
                }
                Async::awaitReadable($this->socket, $remaining);
            } catch (CancelledException) {
                $this->kill();
                $this->markReaped(null);

                return;
            }
        }
    }

    private function markReaped(?int $status): void
    {
        $this->reaped = true;
        $this->status = $status;
        if (\is_resource($this->socket)) {
            \fclose($this->socket);
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
