<?php

declare(strict_types=1);

namespace Bobbin\Http;

/**
 * Where a client connection comes from and which of the server's addresses it reached: what
 * every request on it needs for its server parameters and its URI. Made once per connection;
 * the listener's own parameters are one array shared by all of them, since thousands of idle
 * keep-alive connections each holding a copy would cost ~0.4 KiB apiece.
 *
 * @internal made by Server for Connection
 */
final readonly class ConnectionOrigin
{
    /**
     * @param array<string, string> $listenerParams SERVER_ADDR, SERVER_PORT, SERVER_SOFTWARE and the script's parameters
     */
    public function __construct(
        public string $remoteAddress,
        public string $remotePort,
        public array $listenerParams,
        /** Host and port for a request without a usable Host header. */
        public string $defaultAuthority,
        /** The peer is one of --trusted-proxies: its X-Forwarded-For and -Proto count. */
        public bool $behindTrustedProxy = false,
    ) {
    }
}
