<?php

declare(strict_types=1);

namespace Bobbin\Bench\Load;

/**
 * A legitimate client beside an attack: a fresh connection and one `GET` every 1/rate
 * seconds, each timed from the connect to its status line, each given up after $timeout.
 * Probes run concurrently (a slow one does not delay the next), so what is measured is what
 * a stream of new visitors would see. $record, when given, hears of every probe:
 * (float $begun, float $seconds, int|string $status) — a status code, `reset` or `timeout`.
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
        private readonly ?\Closure $record = null,
    ) {
    }

    /** Probes for $seconds (plus the last probes' timeout); returns this probe. */
    public function run(float $seconds): self
    {
        // Probes in flight, by socket id: the socket, when it began, what it received, whether the request went out.
        /** @var array<int, resource> $sockets */
        $sockets = [];
        /** @var array<int, float> $begun */
        $begun = [];
        /** @var array<int, string> $received */
        $received = [];
        /** @var array<int, bool> $sent */
        $sent = [];
        $finish = function (int $id, ?float $latency, int|string $status = 'reset') use (&$sockets, &$begun, &$received, &$sent): void {
            if ($this->record !== null) {
                ($this->record)($begun[$id], \microtime(true) - $begun[$id], $status);
            }
            @\fclose($sockets[$id]);
            unset($sockets[$id], $begun[$id], $received[$id], $sent[$id]);
            $this->results[] = $latency;
        };
        $request = "GET {$this->path} HTTP/1.1\r\nHost: {$this->host}\r\nConnection: close\r\n\r\n";
        $started = \microtime(true);
        $next = $started;
        while (true) {
            $now = \microtime(true);
            if ($now < $started + $seconds && $now >= $next) {
                $next += 1.0 / $this->rate;
                $socket = @\stream_socket_client("tcp://{$this->host}:{$this->port}", $code, $message, 0, \STREAM_CLIENT_CONNECT | \STREAM_CLIENT_ASYNC_CONNECT);
                if ($socket === false) {
                    $this->results[] = null;
                    if ($this->record !== null) {
                        ($this->record)($now, 0.0, 'reset');
                    }
                } else {
                    \stream_set_blocking($socket, false);
                    $id = (int) $socket;
                    [$sockets[$id], $begun[$id], $received[$id], $sent[$id]] = [$socket, $now, '', false];
                }
            }
            if ($sockets === [] && $now >= $started + $seconds) {
                break;
            }
            $read = $write = [];
            foreach ($sockets as $id => $socket) {
                if ($now - $begun[$id] > $this->timeout) {
                    $finish($id, null, 'timeout');
                } elseif ($sent[$id]) {
                    $read[] = $socket;
                } else {
                    $write[] = $socket;
                }
            }
            $except = null;
            $wait = (int) (\max(0.0, \min($next - $now, 0.05)) * 1e6);
            if ($read === [] && $write === []) {
                \usleep($wait);
                continue;
            }
            if (@\stream_select($read, $write, $except, 0, $wait) === false) {
                continue;
            }
            foreach ($write as $socket) {
                if (@\fwrite($socket, $request) !== \strlen($request)) {
                    $finish((int) $socket, null);
                } else {
                    $sent[(int) $socket] = true;
                }
            }
            foreach ($read as $socket) {
                $id = (int) $socket;
                $data = @\fread($socket, 8192);
                if ($data === false || $data === '') {
                    $finish($id, null);
                    continue;
                }
                $received[$id] .= $data;
                if (\str_contains($received[$id], "\r\n")) {
                    $status = \preg_match('~^HTTP/1\.[01] (\d{3}) ~', $received[$id], $m) === 1 ? (int) $m[1] : 'reset';
                    $finish($id, $status === 200 ? \microtime(true) - $begun[$id] : null, $status);
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
}
