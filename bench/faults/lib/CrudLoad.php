<?php

declare(strict_types=1);

namespace Bobbin\Bench\Faults;

/**
 * One load client of the fault runs: CRUD cycles on one keep-alive connection (reopened when
 * the server closes it), each with a number of its own: POST, GET, PUT (a new title), GET, and
 * DELETE on every other cycle, so that half the rows stay for the row-by-row check. A cycle
 * whose POST was not answered 201 ends there. Every request is recorded with its answer.
 * A plain blocking HTTP/1.1 client: it shares no code with the server under test.
 */
final class CrudLoad
{
    private const TIMEOUT = 15;

    /** @var resource|null */
    private $socket = null;

    public function __construct(
        private readonly string $host,
        private readonly int $port,
        private readonly string $numberPrefix,
    ) {
    }

    /**
     * @param \Closure(array{method: string, number: string, id: int|null, title: string, status: int, body: string, at: float, ms: float, error: string}): void $record
     */
    public function run(float $until, \Closure $record): void
    {
        for ($cycle = 1; \microtime(true) < $until; $cycle++) {
            $this->cycle($cycle, $record);
        }
        if ($this->socket !== null) {
            \fclose($this->socket);
        }
    }

    /** @param \Closure(array{method: string, number: string, id: int|null, title: string, status: int, body: string, at: float, ms: float, error: string}): void $record */
    private function cycle(int $cycle, \Closure $record): void
    {
        $number = $this->numberPrefix . '-' . $cycle;
        $fields = ['number' => $number, 'title' => "first $number", 'serial_number' => "S$cycle", 'assembly_date' => '2020-02-29', 'added_at' => '2024-01-31'];
        $created = $this->send($record, 'POST', '/aircraft', $number, null, $fields);
        $id = \json_decode($created, true)['id'] ?? null;
        if (!\is_int($id)) {
            return;
        }
        $this->send($record, 'GET', "/aircraft/$id", $number, $id);
        $this->send($record, 'PUT', "/aircraft/$id", $number, $id, ['title' => "second $number"] + $fields);
        $this->send($record, 'GET', "/aircraft/$id", $number, $id);
        if ($cycle % 2 === 1) {
            $this->send($record, 'DELETE', "/aircraft/$id", $number, $id);
        }
    }

    /**
     * @param \Closure(array{method: string, number: string, id: int|null, title: string, status: int, body: string, at: float, ms: float, error: string}): void $record
     * @param array<string, string>|null $fields
     * @return string the body of a 201 answer, else ''
     */
    private function send(\Closure $record, string $method, string $path, string $number, ?int $id, ?array $fields = null): string
    {
        $body = $fields === null ? '' : \json_encode($fields, \JSON_THROW_ON_ERROR | \JSON_UNESCAPED_SLASHES);
        $at = \microtime(true);
        [$status, $answer, $error] = $this->exchange($method, $path, $body);
        $record([
            'method' => $method,
            'number' => $number,
            'id' => $id,
            'title' => $fields['title'] ?? '',
            'status' => $status,
            'body' => $answer,
            'at' => $at,
            'ms' => \round((\microtime(true) - $at) * 1000, 2),
            'error' => $error,
        ]);

        return $status === 201 ? $answer : '';
    }

    /** @return array{int, string, string} status (0: no answer), body, and why there was no answer */
    private function exchange(string $method, string $path, string $body): array
    {
        $reused = $this->socket !== null;
        $received = 0;
        try {
            $socket = $this->socket ??= $this->connect();
            $request = "$method $path HTTP/1.1\r\nHost: {$this->host}:{$this->port}\r\n"
                . ($body === '' ? '' : "Content-Type: application/json\r\nContent-Length: " . \strlen($body) . "\r\n")
                . "\r\n" . $body;
            if (@\fwrite($socket, $request) !== \strlen($request)) {
                throw new \RuntimeException('write failed');
            }
            $response = '';
            while (($end = \strpos($response, "\r\n\r\n")) === false) {
                $response .= $this->read($socket);
                $received = \strlen($response);
            }
            $head = \substr($response, 0, $end);
            if (\preg_match('~^HTTP/1\.1 (\d{3}) ~', $head, $status) !== 1) {
                throw new \RuntimeException('bad status line');
            }
            $length = \preg_match('~\r\ncontent-length:\s*(\d+)~i', $head, $m) === 1 ? (int) $m[1] : 0;
            while (\strlen($response) < $end + 4 + $length) {
                $response .= $this->read($socket);
            }
            if (\preg_match('~\r\nconnection:\s*close~i', $head) === 1) {
                $this->disconnect();
            }

            return [(int) $status[1], \substr($response, $end + 4, $length), ''];
        } catch (\RuntimeException $e) {
            $this->disconnect();

            // A reused keep-alive connection closed before any byte of the answer: the server
            // closed it idle just as the request went out (a client may retry what is idempotent).
            return [0, '', \sprintf('%s (%s connection, %d bytes received)', $e->getMessage(), $reused ? 'reused' : 'new', $received)];
        }
    }

    /** @return resource */
    private function connect()
    {
        $socket = @\stream_socket_client("tcp://{$this->host}:{$this->port}", $errno, $error, self::TIMEOUT);
        if ($socket === false) {
            throw new \RuntimeException("connect: $error");
        }
        \stream_set_timeout($socket, self::TIMEOUT);

        return $socket;
    }

    /** @param resource $socket */
    private function read($socket): string
    {
        $data = @\fread($socket, 65536);
        if ($data === false || $data === '') {
            throw new \RuntimeException('the connection closed or timed out');
        }

        return $data;
    }

    private function disconnect(): void
    {
        if ($this->socket !== null) {
            \fclose($this->socket);
            $this->socket = null;
        }
    }
}
