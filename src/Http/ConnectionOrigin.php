<?php

declare(strict_types=1);

namespace Bobbin\Http;

/**
 * Where a client connection comes from and which of the server's addresses it reached: what
 * every request on it needs for its server parameters and its URI. Made once per connection.
 * The listener's own parameters are one array shared by all connections; the connection's part
 * is built on its first request and kept while it is active (a copy per request costs more),
 * and dropped while it is parked: thousands of idle keep-alive connections each holding it
 * would cost ~0.4 KiB apiece.
 *
 * @internal made by Server for Connection
 */
final class ConnectionOrigin
{
    /** @var array<string, string>|null */
    private ?array $serverParams = null;

    /**
     * @param array<string, string> $listenerParams SERVER_ADDR, SERVER_PORT, SERVER_SOFTWARE and the script's parameters
     */
    public function __construct(
        public readonly string $remoteAddress,
        public readonly string $remotePort,
        private readonly array $listenerParams,
        /** Host and port for a request without a usable Host header. */
        public readonly string $defaultAuthority,
        /** The peer is one of --trusted-proxies: its X-Forwarded-For and -Proto count. */
        public readonly bool $behindTrustedProxy = false,
    ) {
    }

    /**
     * The connection's part of every request's server parameters: REMOTE_ADDR, REMOTE_PORT and
     * the listener's.
     *
     * @return array<string, string>
     */
    public function serverParams(): array
    {
        return $this->serverParams ??= ['REMOTE_ADDR' => $this->remoteAddress, 'REMOTE_PORT' => $this->remotePort] + $this->listenerParams;
    }

    /** The connection goes idle for a while: serverParams() builds its array again when asked. */
    public function forgetServerParams(): void
    {
        $this->serverParams = null;
    }
}
