<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support;

/**
 * A deliberately plain, blocking HTTP/1.1 client for conformance tests: one connection per
 * request, `Connection: close`, Content-Length and chunked responses. It shares no code with the
 * server under test.
 */
final class HttpClient
{
    public function __construct(private readonly string $host, private readonly int $port, private readonly float $timeout = 10.0)
    {
    }

    /** @param array<string, string> $headers */
    public function request(string $method, string $target, ?string $body = null, array $headers = []): HttpResponse
    {
        $socket = @\stream_socket_client("tcp://{$this->host}:{$this->port}", $errno, $error, $this->timeout);
        if ($socket === false) {
            throw new \RuntimeException("Cannot connect to {$this->host}:{$this->port}: $error");
        }
        \stream_set_timeout($socket, (int) \ceil($this->timeout));
        $headers += ['Host' => "{$this->host}:{$this->port}", 'Connection' => 'close'];
        if ($body !== null) {
            $headers += ['Content-Type' => 'application/json', 'Content-Length' => (string) \strlen($body)];
        }
        $raw = "$method $target HTTP/1.1\r\n";
        foreach ($headers as $name => $value) {
            $raw .= "$name: $value\r\n";
        }
        \fwrite($socket, $raw . "\r\n" . ($body ?? ''));
        $response = \stream_get_contents($socket);
        $meta = \stream_get_meta_data($socket);
        \fclose($socket);
        if ($meta['timed_out']) {
            throw new \RuntimeException("Timed out waiting for the response to $method $target");
        }

        return self::parse((string) $response, $method === 'HEAD');
    }

    /** @param array<string, mixed> $data */
    public function json(string $method, string $target, array $data): HttpResponse
    {
        return $this->request($method, $target, \json_encode($data, \JSON_THROW_ON_ERROR));
    }

    public static function parse(string $raw, bool $head = false): HttpResponse
    {
        $end = \strpos($raw, "\r\n\r\n");
        if ($end === false) {
            throw new \RuntimeException('Incomplete response: ' . \var_export(\substr($raw, 0, 200), true));
        }
        $lines = \explode("\r\n", \substr($raw, 0, $end));
        if (\preg_match('~^HTTP/1\.[01] (\d{3})~', (string) \array_shift($lines), $m) !== 1) {
            throw new \RuntimeException('Bad status line in: ' . \substr($raw, 0, 100));
        }
        $headers = [];
        foreach ($lines as $line) {
            [$name, $value] = \explode(':', $line, 2);
            $headers[\strtolower($name)][] = \trim($value);
        }
        $body = $head ? '' : \substr($raw, $end + 4);
        if (!$head && \strtolower($headers['transfer-encoding'][0] ?? '') === 'chunked') {
            $body = self::dechunk($body);
        } elseif (!$head && isset($headers['content-length'])) {
            $body = \substr($body, 0, (int) $headers['content-length'][0]);
        }

        return new HttpResponse((int) $m[1], $headers, $body);
    }

    private static function dechunk(string $data): string
    {
        $body = '';
        while (($lineEnd = \strpos($data, "\r\n")) !== false) {
            $size = \hexdec(\explode(';', \substr($data, 0, $lineEnd))[0]);
            if ($size === 0) {
                break;
            }
            $body .= \substr($data, $lineEnd + 2, (int) $size);
            $data = \substr($data, $lineEnd + 2 + (int) $size + 2);
        }

        return $body;
    }
}
