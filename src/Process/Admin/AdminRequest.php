<?php

declare(strict_types=1);

namespace Bobbin\Process\Admin;

/** One request to the admin listener: what it asks for, and the connection to answer on. */
final class AdminRequest
{
    /** @param resource $socket */
    public function __construct(
        public $socket,
        public readonly string $method,
        public readonly string $path,
        public readonly string $accept,
        /** The Authorization header ('' when none); AdminAccess reads it, nothing keeps it. */
        #[\SensitiveParameter]
        public readonly string $authorization = '',
    ) {
    }

    /** @return array<string, mixed> without the Authorization header */
    public function __debugInfo(): array
    {
        return ['method' => $this->method, 'path' => $this->path, 'accept' => $this->accept];
    }

    /** @param string $extraHeaders header lines, each ending in CRLF */
    public function respond(int $status, string $contentType, string $body, string $extraHeaders = ''): void
    {
        $reason = match ($status) {
            200 => 'OK', 401 => 'Unauthorized', 404 => 'Not Found', 405 => 'Method Not Allowed', 503 => 'Service Unavailable', default => 'Error',
        };
        $bytes = 'HTTP/1.1 ' . $status . ' ' . $reason . "\r\nContent-Type: " . $contentType . "\r\nContent-Length: " . \strlen($body)
            . "\r\nCache-Control: no-store\r\n" . $extraHeaders . "Connection: close\r\n\r\n" . ($this->method === 'HEAD' ? '' : $body);
        // The admin answers are small, and the master may wait for a slow scraper a moment: a
        // blocking write with a short timeout beats keeping a buffer per scraper.
        \stream_set_blocking($this->socket, true);
        \stream_set_timeout($this->socket, 2);
        @\fwrite($this->socket, $bytes);
        @\fclose($this->socket);
    }
}
