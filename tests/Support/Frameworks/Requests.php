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
     * @param list<array{0: string, 1: string, 2: array<string, string>, 3?: string}> $requests method, target, headers, body
     * @return list<HttpResponse> in the order of $requests
     */
    public static function concurrently(string $host, int $port, array $requests, float $timeout = 20.0): array
    {
        $sockets = [];
        foreach ($requests as $request) {
            [$method, $target, $headers] = $request;
            $body = $request[3] ?? '';
            $socket = \stream_socket_client("tcp://$host:$port", $errno, $error, $timeout);
            if ($socket === false) {
                throw new \RuntimeException("Cannot connect to $host:$port: $error");
            }
            \stream_set_timeout($socket, (int) \ceil($timeout));
            $headers += ['Host' => "$host:$port", 'Connection' => 'close'];
            if ($body !== '') {
                $headers += ['Content-Length' => (string) \strlen($body)];
            }
            $raw = "$method $target HTTP/1.1\r\n";
            foreach ($headers as $name => $value) {
                $raw .= "$name: $value\r\n";
            }
            \fwrite($socket, $raw . "\r\n" . $body);
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
    public static function one(string $host, int $port, string $method, string $target, array $headers = [], string $body = ''): HttpResponse
    {
        return self::concurrently($host, $port, [[$method, $target, $headers, $body]])[0];
    }

    /**
     * A multipart/form-data body with fields and files.
     *
     * @param array<string, string> $fields
     * @param array<string, array{string, string}> $files field => [file name, contents]
     * @return array{string, string} the Content-Type and the body
     */
    public static function multipart(array $fields, array $files): array
    {
        $boundary = 'bobbin' . \bin2hex(\random_bytes(8));
        $body = '';
        foreach ($fields as $name => $value) {
            $body .= "--$boundary\r\nContent-Disposition: form-data; name=\"$name\"\r\n\r\n$value\r\n";
        }
        foreach ($files as $name => [$filename, $contents]) {
            $body .= "--$boundary\r\nContent-Disposition: form-data; name=\"$name\"; filename=\"$filename\"\r\n"
                . "Content-Type: application/octet-stream\r\n\r\n$contents\r\n";
        }

        return ["multipart/form-data; boundary=$boundary", $body . "--$boundary--\r\n"];
    }
}
