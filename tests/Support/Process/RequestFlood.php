<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Process;

/**
 * Sends a list of GET requests over $concurrency connections at a time, one request per
 * connection (Connection: close), and tells what became of each: its status code, or `reset`
 * (the connection failed or closed without a complete response head). A client of its own,
 * not wrk, because each request's fate is asserted, not a total.
 */
final class RequestFlood
{
    private function __construct()
    {
    }

    /**
     * @param list<string> $paths
     * @return list<array{path: string, status: int|string, headers: string}> in the order of $paths
     */
    public static function run(string $address, array $paths, int $concurrency, float $timeout = 60.0): array
    {
        $results = [];
        /** @var array<int, array{index: int, socket: resource, buffer: string}> $active */
        $active = [];
        $next = 0;
        $deadline = \microtime(true) + $timeout;
        while ($next < \count($paths) || $active !== []) {
            while (\count($active) < $concurrency && $next < \count($paths)) {
                $index = $next++;
                $socket = @\stream_socket_client('tcp://' . $address, $code, $message, 5.0);
                if ($socket === false) {
                    $results[$index] = ['path' => $paths[$index], 'status' => 'reset', 'headers' => $message];
                    continue;
                }
                \fwrite($socket, "GET {$paths[$index]} HTTP/1.1\r\nHost: flood\r\nConnection: close\r\n\r\n");
                \stream_set_blocking($socket, false);
                $active[(int) $socket] = ['index' => $index, 'socket' => $socket, 'buffer' => ''];
            }
            if ($active === []) {
                continue;
            }
            if (\microtime(true) > $deadline) {
                throw new \RuntimeException(\sprintf('%d request(s) still unanswered after %.0f s', \count($active), $timeout));
            }
            $read = \array_column($active, 'socket');
            $write = $except = null;
            if (@\stream_select($read, $write, $except, 0, 200_000) === false) {
                continue;
            }
            foreach ($read as $socket) {
                $entry = &$active[(int) $socket];
                $data = @\fread($socket, 65536);
                if ($data !== false && $data !== '') {
                    $entry['buffer'] .= $data;
                    continue;
                }
                if ($data === '' && !\feof($socket)) {
                    continue;
                }
                $results[$entry['index']] = self::outcome($paths[$entry['index']], $entry['buffer']);
                \fclose($socket);
                unset($entry, $active[(int) $socket]);
            }
            unset($entry);
        }
        \ksort($results);

        return \array_values($results);
    }

    /** @return array{path: string, status: int|string, headers: string} */
    private static function outcome(string $path, string $response): array
    {
        $end = \strpos($response, "\r\n\r\n");
        if ($end === false || \preg_match('~^HTTP/1\.[01] (\d{3})~', $response, $match) !== 1) {
            return ['path' => $path, 'status' => 'reset', 'headers' => \substr($response, 0, 200)];
        }

        return ['path' => $path, 'status' => (int) $match[1], 'headers' => \substr($response, 0, $end)];
    }

    /**
     * How many requests to each path ended how: path => outcome => count.
     *
     * @param list<array{path: string, status: int|string, headers: string}> $results
     * @return array<string, array<int|string, int>>
     */
    public static function tally(array $results): array
    {
        $tally = [];
        foreach ($results as $result) {
            $tally[$result['path']][$result['status']] = ($tally[$result['path']][$result['status']] ?? 0) + 1;
        }
        foreach ($tally as &$outcomes) {
            \ksort($outcomes);
        }

        return $tally;
    }
}
