<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Http;

/** One blocking HTTP/1.0 GET for tests: status, headers (lower case) and body. */
final class HttpGet
{
    /**
     * @param list<string> $headers extra header lines
     * @return array{status: int, headers: array<string, string>, body: string}
     */
    public static function fetch(string $address, string $path, array $headers = [], float $timeout = 10.0): array
    {
        $socket = @\stream_socket_client('tcp://' . $address, $code, $message, $timeout);
        if ($socket === false) {
            throw new \RuntimeException("Cannot connect to $address: $message");
        }
        \stream_set_timeout($socket, (int) \ceil($timeout));
        \fwrite($socket, "GET $path HTTP/1.0\r\nHost: test\r\n" . \implode('', \array_map(static fn (string $h): string => "$h\r\n", $headers)) . "\r\n");
        $raw = (string) \stream_get_contents($socket);
        \fclose($socket);
        [$head, $body] = \explode("\r\n\r\n", $raw, 2) + [1 => ''];
        $lines = \explode("\r\n", $head);
        \preg_match('~^HTTP/1\.[01] (\d{3})~', (string) \array_shift($lines), $m);
        $parsed = [];
        foreach ($lines as $line) {
            [$name, $value] = \explode(':', $line, 2) + [1 => ''];
            $parsed[\strtolower($name)] = \trim($value);
        }

        return ['status' => (int) ($m[1] ?? 0), 'headers' => $parsed, 'body' => $body];
    }
}
