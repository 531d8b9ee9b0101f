<?php

declare(strict_types=1);

namespace Bobbin\Ipc;

use Bobbin\Async\ConnectTarget;

/** Where the daemon listens: a unix socket path or a TCP host and port. */
final class Endpoint
{
    private function __construct(
        public readonly Transport $transport,
        public readonly string $address,
        /** Where Async\SocketConnector connects. */
        public readonly ConnectTarget $target,
    ) {
    }

    public static function unix(string $path): self
    {
        if ($path === '') {
            throw new \InvalidArgumentException('The unix socket path is empty');
        }

        return new self(Transport::Unix, $path, ConnectTarget::unix($path));
    }

    public static function tcp(string $host, int $port): self
    {
        if ($port < 1 || $port > 65535) {
            throw new \InvalidArgumentException(\sprintf('Bad TCP port %d', $port));
        }

        return new self(Transport::Tcp, \str_contains($host, ':') ? "[$host]:$port" : "$host:$port", ConnectTarget::tcp($host, $port));
    }

    public function uri(): string
    {
        return ($this->transport === Transport::Unix ? 'unix://' : 'tcp://') . $this->address;
    }
}
