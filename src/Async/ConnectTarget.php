<?php

declare(strict_types=1);

namespace Bobbin\Async;

/** Where SocketConnector connects: a TCP host and port, or a unix socket's path. */
final class ConnectTarget
{
    private function __construct(
        /** What stream_socket_client() is given: tcp://host:port or unix:///path. */
        public readonly string $uri,
        public readonly bool $isUnix,
    ) {
    }

    public static function tcp(string $host, int $port): self
    {
        if ($host === '') {
            throw new \ValueError('The host to connect to is empty');
        }
        if ($port < 1 || $port > 65535) {
            throw new \ValueError(\sprintf('Bad TCP port %d', $port));
        }
        // An IPv6 address needs its brackets before the port.
        $host = \str_contains($host, ':') && !\str_starts_with($host, '[') ? '[' . $host . ']' : $host;

        return new self(\sprintf('tcp://%s:%d', $host, $port), false);
    }

    public static function unix(string $path): self
    {
        if ($path === '') {
            throw new \ValueError('The unix socket path is empty');
        }

        return new self('unix://' . $path, true);
    }
}
