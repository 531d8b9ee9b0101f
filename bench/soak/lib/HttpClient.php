<?php

declare(strict_types=1);

namespace Bobbin\Bench\Soak;

/**
 * A plain blocking HTTP/1.1 client on one keep-alive connection (reopened after the server
 * closes it), for the soak's clients: it shares no code with the server under test. A request
 * can be sent whole or trickled ($chunk bytes every $pause seconds), as a slow client sends.
 */
final class HttpClient
{
    /** @var resource|null */
    private $socket = null;

    public function __construct(
        private readonly string $host,
        private readonly int $port,
        private readonly float $timeout = 30.0,
    ) {
    }

    /**
     * @param array<string, string> $headers
     * @return array{status: int, body: string, error: string} status 0: no answer (error says why)
     */
    public function request(string $method, string $path, array $headers = [], string $body = '', bool $close = false, int $chunk = 0, float $pause = 0.0): array
    {
        $head = "$method $path HTTP/1.1\r\nHost: {$this->host}:{$this->port}\r\n";
        foreach ($headers as $name => $value) {
            $head .= "$name: $value\r\n";
        }
        if ($body !== '') {
            $head .= 'Content-Length: ' . \strlen($body) . "\r\n";
        }
        $raw = $head . ($close ? "Connection: close\r\n" : '') . "\r\n" . $body;
        try {
            $reused = $this->socket !== null;
            $socket = $this->socket ??= $this->connect();
            try {
                $this->send($socket, $raw, $chunk, $pause);
            } catch (\RuntimeException $e) {
                // The server may have answered before it stopped reading (a 503 from a worker
                // that ended, a 413): read that answer, as a browser shows it.
                \stream_set_timeout($socket, 1);
                $early = (string) @\fread($socket, 65536);
                if (\preg_match('~^HTTP/1\.[01] (\d{3}) ~', $early, $status) === 1) {
                    $this->disconnect();
                    $end = \strpos($early, "\r\n\r\n");

                    return ['status' => (int) $status[1], 'body' => $end === false ? '' : \substr($early, $end + 4), 'error' => ''];
                }
                throw $e;
            }
            $response = '';
            while (($end = \strpos($response, "\r\n\r\n")) === false) {
                $response .= $this->read($socket);
            }
            $responseHead = \substr($response, 0, $end);
            if (\preg_match('~^HTTP/1\.[01] (\d{3}) ~', $responseHead, $status) !== 1) {
                throw new \RuntimeException('bad status line: ' . \substr($responseHead, 0, 60));
            }
            $length = \preg_match('~\r\ncontent-length:\s*(\d+)~i', $responseHead, $m) === 1 ? (int) $m[1] : 0;
            while (\strlen($response) < $end + 4 + $length) {
                $response .= $this->read($socket);
            }
            if ($close || \preg_match('~\r\nconnection:\s*close~i', $responseHead) === 1) {
                $this->disconnect();
            }

            return ['status' => (int) $status[1], 'body' => \substr($response, $end + 4, $length), 'error' => ''];
        } catch (\RuntimeException $e) {
            $this->disconnect();

            return ['status' => 0, 'body' => '', 'error' => $e->getMessage() . ' (' . (($reused ?? false) ? 'reused' : 'new') . ' connection)'];
        }
    }

    public function disconnect(): void
    {
        if ($this->socket !== null) {
            @\fclose($this->socket);
            $this->socket = null;
        }
    }

    /** @param resource $socket */
    private function send($socket, string $raw, int $chunk, float $pause): void
    {
        $pieces = $chunk > 0 ? \str_split($raw, $chunk) : [$raw];
        foreach ($pieces as $i => $piece) {
            if ($i > 0) {
                \usleep((int) ($pause * 1e6));
            }
            if (@\fwrite($socket, $piece) !== \strlen($piece)) {
                throw new \RuntimeException(\sprintf('write failed after %d of %d bytes', $i * $chunk, \strlen($raw)));
            }
        }
    }

    /** @return resource */
    private function connect()
    {
        $socket = @\stream_socket_client("tcp://{$this->host}:{$this->port}", $errno, $error, $this->timeout);
        if ($socket === false) {
            throw new \RuntimeException("connect: $error");
        }
        \stream_set_timeout($socket, (int) \ceil($this->timeout));

        return $socket;
    }

    /** @param resource $socket */
    private function read($socket): string
    {
        $data = @\fread($socket, 65536);
        if ($data === false || $data === '') {
            throw new \RuntimeException(\stream_get_meta_data($socket)['timed_out'] ? 'timed out' : 'the connection closed');
        }

        return $data;
    }
}
