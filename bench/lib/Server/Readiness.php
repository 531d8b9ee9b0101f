<?php

declare(strict_types=1);

namespace Bobbin\Bench\Server;

/** Waits until a freshly started server answers a GET with 200. */
final class Readiness
{
    public static function await(string $url, float $timeout, ?\Closure $stillAlive = null): void
    {
        $deadline = \microtime(true) + $timeout;
        $context = \stream_context_create(['http' => ['timeout' => 1.0, 'ignore_errors' => true]]);
        while (\microtime(true) < $deadline) {
            if ($stillAlive !== null && !$stillAlive()) {
                throw new \RuntimeException("The server for $url exited during start-up");
            }
            $http_response_header = [];
            $body = @\file_get_contents($url, false, $context);
            if ($body !== false && \str_contains($http_response_header[0] ?? '', ' 200')) {
                return;
            }
            \usleep(100_000);
        }
        throw new \RuntimeException("No 200 from $url within {$timeout}s");
    }
}
