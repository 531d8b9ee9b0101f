<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Frameworks;

use Bobbin\Tests\Support\HttpClient;
use Bobbin\Tests\Support\HttpResponse;

/**
 * Sends requests at the same time, each on its own connection: every request is written before
 * any response is read, so a server that handles them one after another and one that handles
 * them together both get all of them at once.
 */
final class Requests
{
    /**
     * @param list<array{string, string, array<string, string>}> $requests method, target, headers
     * @return list<HttpResponse> in the order of $requests
     */
    public static function concurrently(string $host, int $port, array $requests, float $timeout = 20.0): array
    {
        $sockets = [];
        foreach ($requests as [$method, $target, $headers]) {
            $socket = \stream_socket_client("tcp://$host:$port", $errno, $error, $timeout);
            if ($socket === false) {
                throw new \RuntimeException("Cannot connect to $host:$port: $error");
            }
            \stream_set_timeout($socket, (int) \ceil($timeout));
            $headers += ['Host' => "$host:$port", 'Connection' => 'close'];
            $raw = "$method $target HTTP/1.1\r\n";
            foreach ($headers as $name => $value) {
                $raw .= "$name: $value\r\n";
            }
            \fwrite($socket, $raw . "\r\n");
            $sockets[] = $socket;
        }
        $responses = [];
        foreach ($sockets as $socket) {
            $raw = (string) \stream_get_contents($socket);
            \fclose($socket);
            $responses[] = HttpClient::parse($raw);
        }

        return $responses;
    }

    /** @param array<string, string> $headers */
    public static function one(string $host, int $port, string $method, string $target, array $headers = []): HttpResponse
    {
        return self::concurrently($host, $port, [[$method, $target, $headers]])[0];
    }
}
