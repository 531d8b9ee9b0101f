<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Http;

/**
 * A blocking raw-socket HTTP client for tests: sends exact bytes (all at once or one at a
 * time) and reads responses framed by Content-Length, chunked, or the connection's end.
 */
final class RawClient
{
    /** @var resource */
    private $socket;
    private string $buffer = '';

    public function __construct(string $address, float $timeout = 10.0)
    {
        $socket = \stream_socket_client('tcp://' . $address, $code, $message, $timeout);
        if ($socket === false) {
            throw new \RuntimeException(\sprintf('Cannot connect to %s: %s', $address, $message));
        }
        \stream_set_timeout($socket, (int) $timeout, (int) (($timeout - (int) $timeout) * 1e6));
        $raw = \socket_import_stream($socket);
        if ($raw instanceof \Socket) {
            \socket_set_option($raw, \SOL_TCP, \TCP_NODELAY, 1);
        }
        $this->socket = $socket;
    }

    public function send(string $bytes): void
    {
        $offset = 0;
        while ($offset < \strlen($bytes)) {
            $written = @\fwrite($this->socket, \substr($bytes, $offset));
            if ($written === false || $written === 0) {
                throw new \RuntimeException('The server closed the connection while the client was sending');
            }
            $offset += $written;
        }
    }

    /** Sends one byte per write with a short pause, so the server sees each byte arrive alone. */
    public function sendByteByByte(string $bytes, int $pauseMicroseconds = 300): void
    {
        foreach (\str_split($bytes) as $byte) {
            if (@\fwrite($this->socket, $byte) !== 1) {
                // The server may answer (and close) before the end of a rejected request.
                return;
            }
            \usleep($pauseMicroseconds);
        }
    }

    /**
     * Reads one response. For HEAD (or other bodiless) requests pass $expectBody = false.
     *
     * @return array{status: int, reason: string, headers: array<string, list<string>>, body: string, raw: string}|null
     *         null when the server closed the connection without a response
     */
    public function readResponse(bool $expectBody = true): ?array
    {
        while (($end = \strpos($this->buffer, "\r\n\r\n")) === false) {
            if (!$this->fill()) {
                return null;
            }
        }
        $head = \substr($this->buffer, 0, $end);
        $this->buffer = \substr($this->buffer, $end + 4);
        $lines = \explode("\r\n", $head);
        if (\preg_match('#^HTTP/1\.[01] (\d{3}) ?(.*)$#', \array_shift($lines), $m) !== 1) {
            throw new \RuntimeException('Malformed status line: ' . $head);
        }
        $status = (int) $m[1];
        $headers = [];
        foreach ($lines as $line) {
            [$name, $value] = \explode(':', $line, 2);
            $headers[\strtolower($name)][] = \trim($value);
        }
        $body = '';
        if ($status >= 200 && $status !== 204 && $status !== 304 && $expectBody) {
            if (isset($headers['transfer-encoding'])) {
                $body = $this->readChunked();
            } elseif (isset($headers['content-length'])) {
                $length = (int) $headers['content-length'][0];
                while (\strlen($this->buffer) < $length) {
                    if (!$this->fill()) {
                        throw new \RuntimeException('Connection closed inside a body');
                    }
                }
                $body = \substr($this->buffer, 0, $length);
                $this->buffer = \substr($this->buffer, $length);
            } else {
                while ($this->fill()) {
                }
                $body = $this->buffer;
                $this->buffer = '';
            }
        }

        return ['status' => $status, 'reason' => $m[2], 'headers' => $headers, 'body' => $body, 'raw' => $head];
    }

    /** True when the server has closed the connection (EOF) within $timeout, with nothing more sent. */
    public function isClosedByServer(float $timeout = 5.0): bool
    {
        $deadline = \microtime(true) + $timeout;
        while (\microtime(true) < $deadline) {
            $read = [$this->socket];
            $write = $except = null;
            if (@\stream_select($read, $write, $except, 0, 100000) === 1) {
                $data = @\fread($this->socket, 65536);
                if ($data === '' || $data === false) {
                    return true;
                }
                $this->buffer .= $data;

                return false;
            }
        }

        return false;
    }

    /**
     * Keeps whatever the server still sends (readResponse() can parse it afterwards) until it
     * closes the connection: true when that happened within $timeout.
     */
    public function awaitClose(float $timeout): bool
    {
        $deadline = \microtime(true) + $timeout;
        do {
            $read = [$this->socket];
            $write = $except = null;
            if (@\stream_select($read, $write, $except, 0, 20000) === 1) {
                $data = @\fread($this->socket, 65536);
                if ($data === '' || $data === false) {
                    return true;
                }
                $this->buffer .= $data;
            }
        } while (\microtime(true) < $deadline);

        return false;
    }

    /** The next bytes the server sends (waiting up to the client's timeout), or null at the end of the connection. */
    public function readSome(): ?string
    {
        if ($this->buffer !== '') {
            $data = $this->buffer;
            $this->buffer = '';

            return $data;
        }

        return $this->fill() ? $this->readSome() : null;
    }

    public function close(): void
    {
        if (\is_resource($this->socket)) {
            \fclose($this->socket);
        }
    }

    /** @return resource */
    public function socket()
    {
        return $this->socket;
    }

    private function fill(): bool
    {
        $data = @\fread($this->socket, 65536);
        if ($data === false || $data === '') {
            if (\stream_get_meta_data($this->socket)['timed_out']) {
                throw new \RuntimeException('Timed out waiting for the server');
            }

            return false;
        }
        $this->buffer .= $data;

        return true;
    }

    private function readChunked(): string
    {
        $body = '';
        while (true) {
            while (($end = \strpos($this->buffer, "\r\n")) === false) {
                if (!$this->fill()) {
                    throw new \RuntimeException('Connection closed inside a chunked body');
                }
            }
            $size = \hexdec(\substr($this->buffer, 0, $end));
            $this->buffer = \substr($this->buffer, $end + 2);
            while (\strlen($this->buffer) < $size + 2) {
                if (!$this->fill()) {
                    throw new \RuntimeException('Connection closed inside a chunk');
                }
            }
            if ($size === 0) {
                // No trailers from this server: just the final CRLF.
                $this->buffer = \substr($this->buffer, 2);

                return $body;
            }
            $body .= \substr($this->buffer, 0, (int) $size);
            $this->buffer = \substr($this->buffer, (int) $size + 2);
        }
    }
}
