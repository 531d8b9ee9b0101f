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

    /**
     * @param list<string> $badPaths
     * @return array{bad: list<array{status: int|string, seconds: float, retryAfter: bool}>, healthy: list<array{status: int|string, seconds: float, retryAfter: bool}>, seconds: float}
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
        $results = ['bad' => [], 'healthy' => []];
        /** @var array<int, array{socket: resource, stream: string, request: string, sent: bool, began: float, buffer: string}> $active */
        $active = [];
        $counts = ['bad' => 0, 'healthy' => 0];
        $next = 0;
        $started = \microtime(true);
        $badDone = 0;
        $finish = static function (int $id, int|string $status, bool $retryAfter) use (&$active, &$results, &$counts, &$badDone): void {
            $entry = $active[$id];
            @\fclose($entry['socket']);
            unset($active[$id]);
            $counts[$entry['stream']]--;
            $result = ['status' => $status, 'seconds' => \microtime(true) - $entry['began'], 'retryAfter' => $retryAfter];
            if (!\is_int($status)) {
                // What a reset looked like: refused (never written), or closed after N bytes.
                $result['detail'] = $entry['sent'] ? \sprintf('closed after %d bytes: %s', \strlen($entry['buffer']), \json_encode($entry['buffer'])) : 'connect or write failed';
            }
            $results[$entry['stream']][] = $result;
            if ($entry['stream'] === 'bad') {
                $badDone++;
            }
        };
        $open = static function (string $stream, string $path) use ($host, $port, &$active, &$counts, &$results): void {
            $counts[$stream]++;
            $socket = @\stream_socket_client("tcp://$host:$port", $code, $message, 0, \STREAM_CLIENT_CONNECT | \STREAM_CLIENT_ASYNC_CONNECT);
            if ($socket === false) {
                $counts[$stream]--;
                $results[$stream][] = ['status' => 'reset', 'seconds' => 0.0, 'retryAfter' => false];

                return;
            }
            \stream_set_blocking($socket, false);
            $active[(int) $socket] = [
                'socket' => $socket,
                'stream' => $stream,
                'request' => "GET $path HTTP/1.1\r\nHost: $host:$port\r\nConnection: close\r\n\r\n",
                'sent' => false,
                'began' => \microtime(true),
                'buffer' => '',
            ];
        };
        $badTotal = \count($badPaths);
        while ($badDone < $badTotal) {
            while ($next < $badTotal && $counts['bad'] < $badConcurrency) {
                $open('bad', $badPaths[$next++]);
                if ($next === $badTotal) {
                    break;
                }
            }
            while ($counts['healthy'] < $healthyConcurrency) {
                $open('healthy', $healthyPath);
            }
            $badDone = \count($results['bad']);
            if ($badDone >= $badTotal) {
                break;
            }
            $read = $write = [];
            $now = \microtime(true);
            foreach ($active as $id => $entry) {
                if ($now - $entry['began'] > $timeout) {
                    $finish($id, 'timeout', false);
                } elseif ($entry['sent']) {
                    $read[] = $entry['socket'];
                } else {
                    $write[] = $entry['socket'];
                }
            }
            $except = null;
            if (($read === [] && $write === []) || @\stream_select($read, $write, $except, 0, 50_000) === false) {
                continue;
            }
            foreach ($write as $socket) {
                $id = (int) $socket;
                if (@\fwrite($socket, $active[$id]['request']) !== \strlen($active[$id]['request'])) {
                    $finish($id, 'reset', false);
                } else {
                    $active[$id]['sent'] = true;
                }
            }
            foreach ($read as $socket) {
                $id = (int) $socket;
                $data = @\fread($socket, self::READ_BYTES);
                if ($data !== false && $data !== '') {
                    $active[$id]['buffer'] .= $data;
                    continue;
                }
                if ($data === '' && !\feof($socket)) {
                    continue;
                }
                [$status, $retryAfter] = self::outcome($active[$id]['buffer']);
                $finish($id, $status, $retryAfter);
            }
        }
        $seconds = \microtime(true) - $started;
        // The healthy requests still in flight are answered too (not counted in the rate).
        foreach (\array_keys($active) as $id) {
            $socket = $active[$id]['socket'];
            \stream_set_blocking($socket, true);
            \stream_set_timeout($socket, (int) \ceil($timeout));
            if (!$active[$id]['sent']) {
                @\fwrite($socket, $active[$id]['request']);
            }
            while (!\feof($socket) && ($data = @\fread($socket, self::READ_BYTES)) !== false && $data !== '') {
                $active[$id]['buffer'] .= $data;
            }
            [$status, $retryAfter] = self::outcome($active[$id]['buffer']);
            $finish($id, $status, $retryAfter);
        }

        return $results + ['seconds' => $seconds];
    }

    /**
     * Healthy requests only, for $seconds: the rate without a flood, to read the flood's beside.
     *
     * @return array{answered: int, other: int, seconds: float}
     */
    public static function baseline(string $host, int $port, string $path, int $concurrency, float $seconds): array
    {
        // A "bad" stream of slow no-ops would skew it: run healthy requests against a list of
        // healthy paths long enough for $seconds, then count what the window saw.
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

    /** @return array{int|string, bool} status (or `reset`) and whether Retry-After came with it */
    private static function outcome(string $response): array
    {
        $end = \strpos($response, "\r\n\r\n");
        if ($end === false || \preg_match('~^HTTP/1\.[01] (\d{3})~', $response, $match) !== 1) {
            return ['reset', false];
        }

        return [(int) $match[1], \preg_match('~\r\nretry-after:~i', \substr($response, 0, $end + 2)) === 1];
    }
}
