<?php

declare(strict_types=1);

namespace Bobbin\Bench\Load;

/**
 * Two streams of GET requests at once, each request on a fresh connection (`Connection:
 * close`): a fixed list of "bad" paths kept $badConcurrency in flight, and beside it healthy
 * requests kept $healthyConcurrency in flight until the last bad one is answered. Each request's
 * fate is kept (status, or `reset` for a connection refused, reset or closed without a status
 * line, or `timeout`), because a fault run asserts every answer, not a total. One process, one
 * stream_select loop, non-blocking connects: a slow answer never holds up the others.
 */
final class FloodClient
{
    private const READ_BYTES = 65536;

    /** @var array<string, list<array{status: int|string, seconds: float, retryAfter: bool, detail?: string}>> */
    private array $results = ['bad' => [], 'healthy' => []];
    /** @var array<int, FloodRequest> by socket id */
    private array $active = [];
    /** @var array<string, int> requests in flight per stream */
    private array $inFlight = ['bad' => 0, 'healthy' => 0];

    private function __construct(private readonly string $host, private readonly int $port)
    {
    }

    /**
     * @param list<string> $badPaths
     * @return array{bad: list<array{status: int|string, seconds: float, retryAfter: bool, detail?: string}>, healthy: list<array{status: int|string, seconds: float, retryAfter: bool, detail?: string}>, seconds: float}
     *         seconds: from the first request to the last bad one's answer
     */
    public static function run(
        string $host,
        int $port,
        array $badPaths,
        int $badConcurrency,
        string $healthyPath,
        int $healthyConcurrency,
        float $timeout = 30.0,
    ): array {
        $client = new self($host, $port);
        $started = \microtime(true);
        $next = 0;
        $badTotal = \count($badPaths);
        while (\count($client->results['bad']) < $badTotal) {
            while ($next < $badTotal && $client->inFlight['bad'] < $badConcurrency) {
                $client->open('bad', $badPaths[$next++]);
            }
            while ($client->inFlight['healthy'] < $healthyConcurrency) {
                $client->open('healthy', $healthyPath);
            }
            $client->turn($timeout);
        }
        $seconds = \microtime(true) - $started;
        // The healthy requests still in flight are answered too (not counted in the rate).
        while ($client->active !== []) {
            $client->turn($timeout);
        }

        return ['bad' => $client->results['bad'], 'healthy' => $client->results['healthy'], 'seconds' => $seconds];
    }

    /**
     * Healthy requests only, for $seconds: the rate without a flood, to read the flood's beside.
     *
     * @return array{answered: int, other: int, seconds: float}
     */
    public static function baseline(string $host, int $port, string $path, int $concurrency, float $seconds): array
    {
        $started = \microtime(true);
        $answered = $other = 0;
        while (\microtime(true) - $started < $seconds) {
            $round = self::run($host, $port, \array_fill(0, $concurrency * 20, $path), $concurrency, $path, 0);
            foreach ($round['bad'] as $r) {
                $r['status'] === 200 ? $answered++ : $other++;
            }
        }

        return ['answered' => $answered, 'other' => $other, 'seconds' => \microtime(true) - $started];
    }

    private function open(string $stream, string $path): void
    {
        $this->inFlight[$stream]++;
        $socket = @\stream_socket_client("tcp://{$this->host}:{$this->port}", $code, $message, 0, \STREAM_CLIENT_CONNECT | \STREAM_CLIENT_ASYNC_CONNECT);
        if ($socket === false) {
            $this->inFlight[$stream]--;
            $this->results[$stream][] = ['status' => 'reset', 'seconds' => 0.0, 'retryAfter' => false, 'detail' => "connect: $message"];

            return;
        }
        \stream_set_blocking($socket, false);
        $this->active[(int) $socket] = new FloodRequest($socket, $stream, "GET $path HTTP/1.1\r\nHost: {$this->host}:{$this->port}\r\nConnection: close\r\n\r\n");
    }

    /** One wait for the sockets: sends what can be sent, reads what came, ends what is done. */
    private function turn(float $timeout): void
    {
        $read = $write = [];
        $now = \microtime(true);
        foreach ($this->active as $id => $request) {
            if ($now - $request->began > $timeout) {
                $this->finish($id, 'timeout');
            } elseif ($request->sent) {
                $read[] = $request->socket;
            } else {
                $write[] = $request->socket;
            }
        }
        $except = null;
        if (($read === [] && $write === []) || @\stream_select($read, $write, $except, 0, 50_000) === false) {
            return;
        }
        foreach ($write as $socket) {
            $request = $this->active[(int) $socket];
            if (@\fwrite($socket, $request->request) !== \strlen($request->request)) {
                $this->finish((int) $socket, 'reset');
            } else {
                $request->sent = true;
            }
        }
        foreach ($read as $socket) {
            $data = @\fread($socket, self::READ_BYTES);
            if ($data !== false && $data !== '') {
                $this->active[(int) $socket]->buffer .= $data;
            } elseif ($data === false || \feof($socket)) {
                $this->finish((int) $socket, null);
            }
        }
    }

    /** @param string|null $status null: what the response says */
    private function finish(int $id, ?string $status): void
    {
        $request = $this->active[$id];
        unset($this->active[$id]);
        @\fclose($request->socket);
        $this->inFlight[$request->stream]--;
        $this->results[$request->stream][] = $request->outcome($status);
    }
}
