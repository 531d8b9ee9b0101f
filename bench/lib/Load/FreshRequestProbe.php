<?php

declare(strict_types=1);

namespace Bobbin\Bench\Load;

/**
 * A legitimate client beside an attack: a fresh connection and one `GET` every 1/rate
 * seconds, each timed from the connect to its status line, each given up after $timeout.
 * Probes run concurrently (a slow one does not delay the next), so what is measured is what
 * a stream of new visitors would see.
 */
final class FreshRequestProbe
{
    /** @var list<float|null> seconds to the status line, null for a probe not answered with 200 */
    private array $results = [];

    public function __construct(
        private readonly string $host,
        private readonly int $port,
        private readonly float $rate = 4.0,
        private readonly float $timeout = 5.0,
        private readonly string $path = '/',
    ) {
    }

    /** Probes for $seconds (plus the last probes' timeout); returns this probe. */
    public function run(float $seconds): self
    {
        /** @var array<int, array{resource, float, string, bool}> $open socket, start, received, request sent */
        $open = [];
        $started = \microtime(true);
        $next = $started;
        while (true) {
            $now = \microtime(true);
            if ($now < $started + $seconds && $now >= $next) {
                $next += 1.0 / $this->rate;
                $socket = @\stream_socket_client("tcp://{$this->host}:{$this->port}", $code, $message, 0, \STREAM_CLIENT_CONNECT | \STREAM_CLIENT_ASYNC_CONNECT);
                if ($socket === false) {
                    $this->results[] = null;
                } else {
                    \stream_set_blocking($socket, false);
                    $open[(int) $socket] = [$socket, $now, '', false];
                }
            }
            if ($open === [] && $now >= $started + $seconds) {
                break;
            }
            $read = $write = [];
            foreach ($open as [$socket, $begun, , $sent]) {
                if ($now - $begun > $this->timeout) {
                    $this->finish($open, $socket, null);
                    continue;
                }
                if ($sent) {
                    $read[] = $socket;
                } else {
                    $write[] = $socket;
                }
            }
            $except = null;
            $wait = \max(0.0, \min($next - $now, 0.05));
            if ($read === [] && $write === []) {
                \usleep((int) ($wait * 1e6));
                continue;
            }
            if (@\stream_select($read, $write, $except, 0, (int) ($wait * 1e6)) === false) {
                continue;
            }
            foreach ($write as $socket) {
                $request = "GET {$this->path} HTTP/1.1\r\nHost: {$this->host}\r\nConnection: close\r\n\r\n";
                if (@\fwrite($socket, $request) !== \strlen($request)) {
                    $this->finish($open, $socket, null);
                    continue;
                }
                $open[(int) $socket][3] = true;
            }
            foreach ($read as $socket) {
                $data = @\fread($socket, 8192);
                if ($data === false || $data === '') {
                    $this->finish($open, $socket, null);
                    continue;
                }
                $open[(int) $socket][2] .= $data;
                $received = $open[(int) $socket][2];
                if (\str_contains($received, "\r\n")) {
                    $ok = \preg_match('~^HTTP/1\.[01] 200 ~', $received) === 1;
                    $this->finish($open, $socket, $ok ? \microtime(true) - $open[(int) $socket][1] : null);
                }
            }
        }

        return $this;
    }

    public function sent(): int
    {
        return \count($this->results);
    }

    public function answered(): int
    {
        return \count(\array_filter($this->results, static fn (?float $r): bool => $r !== null));
    }

    /** The $p-th percentile (0–100) of latencies in seconds, counting an unanswered probe as infinitely slow. */
    public function percentile(float $p): float
    {
        if ($this->results === []) {
            return \INF;
        }
        $sorted = \array_map(static fn (?float $r): float => $r ?? \INF, $this->results);
        \sort($sorted);

        return $sorted[(int) \min(\count($sorted) - 1, \ceil($p / 100 * \count($sorted)) - 1)];
    }

    /** @param array<int, array{resource, float, string, bool}> $open */
    private function finish(array &$open, mixed $socket, ?float $latency): void
    {
        unset($open[(int) $socket]);
        @\fclose($socket);
        $this->results[] = $latency;
    }
}
