<?php

declare(strict_types=1);

namespace Bobbin\Process\Admin;

use Bobbin\Async\OwnsResources;
use Bobbin\Http\Server;

/**
 * The master's admin socket (--admin=HOST:PORT or unix:/path): accepts scrapers and browsers
 * and reads their request heads without blocking the master, which polls it on every turn of
 * its loop. Answers are the master's (AdminRoutes); this only turns bytes into AdminRequests.
 */
final class AdminListener
{
    use OwnsResources;

    private const MAX_HEAD_BYTES = 8192;
    private const HEAD_SECONDS = 5.0;

    /** @var array<int, array{resource, string, float}> socket id => socket, bytes so far, accepted at */
    private array $pending = [];

    /** @param resource $listener */
    private function __construct(private $listener, public readonly string $address)
    {
    }

    /** @throws \Bobbin\Http\ServerStartException when it cannot listen there */
    public static function open(string $address): self
    {
        $listener = Server::listen($address, 128);
        \stream_set_blocking($listener, false);
        $name = (string) \stream_socket_get_name($listener, false);

        return new self($listener, \str_starts_with($address, 'unix:') ? $address : $name);
    }

    /** @return list<resource> what the master's poll watches for it */
    public function streams(): array
    {
        $streams = [$this->listener];
        foreach ($this->pending as [$socket]) {
            $streams[] = $socket;
        }

        return $streams;
    }

    /**
     * Accepts what waits and reads what arrived; returns the requests whose heads are complete.
     *
     * @return list<AdminRequest>
     */
    public function poll(float $now): array
    {
        while (\count($this->pending) < 64 && ($socket = @\stream_socket_accept($this->listener, 0)) !== false) {
            \stream_set_blocking($socket, false);
            $this->pending[(int) $socket] = [$socket, '', $now];
        }
        $complete = [];
        foreach ($this->pending as $id => [$socket, $bytes, $since]) {
            $data = @\fread($socket, self::MAX_HEAD_BYTES);
            if (\is_string($data) && $data !== '') {
                $bytes .= $data;
                $this->pending[$id][1] = $bytes;
            } elseif ($data === false || \feof($socket)) {
                $this->drop($id);
                continue;
            }
            $end = \strpos($bytes, "\r\n\r\n");
            if ($end === false) {
                if (\strlen($bytes) > self::MAX_HEAD_BYTES || $now - $since > self::HEAD_SECONDS) {
                    $this->drop($id);
                }
                continue;
            }
            unset($this->pending[$id]);
            $request = self::parse($socket, \substr($bytes, 0, $end));
            if ($request === null) {
                @\fclose($socket);
                continue;
            }
            $complete[] = $request;
        }

        return $complete;
    }

    /** In a forked worker: let go of the master's sockets (the path of a unix socket stays the master's). */
    public function forget(): void
    {
        foreach (\array_keys($this->pending) as $id) {
            $this->drop($id);
        }
        @\fclose($this->listener);
    }

    public function close(): void
    {
        foreach (\array_keys($this->pending) as $id) {
            $this->drop($id);
        }
        @\fclose($this->listener);
        if (\str_starts_with($this->address, 'unix:')) {
            @\unlink(\substr($this->address, 5));
        }
    }

    /** @param resource $socket */
    private static function parse($socket, string $head): ?AdminRequest
    {
        $lines = \explode("\r\n", $head);
        if (\preg_match('#^([A-Z]+) (\S+) HTTP/1\.[01]$#', $lines[0], $m) !== 1) {
            return null;
        }
        $accept = '';
        $authorization = '';
        foreach (\array_slice($lines, 1) as $line) {
            if (\stripos($line, 'accept:') === 0) {
                $accept = \trim(\substr($line, 7));
            } elseif (\stripos($line, 'authorization:') === 0) {
                $authorization = \trim(\substr($line, 14));
            }
        }
        $path = (string) \parse_url($m[2], \PHP_URL_PATH);

        return new AdminRequest($socket, $m[1], $path === '' ? '/' : $path, $accept, $authorization);
    }

    private function drop(int $id): void
    {
        if (isset($this->pending[$id])) {
            @\fclose($this->pending[$id][0]);
            unset($this->pending[$id]);
        }
    }
}
