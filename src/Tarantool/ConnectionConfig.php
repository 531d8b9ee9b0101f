<?php

declare(strict_types=1);

namespace Bobbin\Tarantool;

use Bobbin\MessagePack\Extensions;

/** How to open and use one connection to Tarantool. */
final class ConnectionConfig
{
    /**
     * @param string $host a host name or IP address (TCP), ignored when $unixSocket is set
     * @param string $user 'guest' needs no password; any other user authenticates with chap-sha1
     * @param string|null $unixSocket path of the server's unix socket (box.cfg{listen = 'unix/:PATH'})
     * @param float $connectTimeout seconds for the whole connect: TCP, greeting, authentication
     * @param float|null $requestTimeout default bound of every request's wait (RequestTimeoutException)
     * @param Extensions|null $extensions the MessagePack extension types (Tarantool's four by default)
     */
    public function __construct(
        public readonly string $host = '127.0.0.1',
        public readonly int $port = 3301,
        public readonly string $user = 'guest',
        #[\SensitiveParameter] public readonly string $password = '',
        public readonly ?string $unixSocket = null,
        public readonly float $connectTimeout = 10.0,
        public readonly ?float $requestTimeout = null,
        public readonly ?Extensions $extensions = null,
    ) {
        if ($connectTimeout <= 0.0) {
            throw new \ValueError('The connect timeout must be positive');
        }
        if ($requestTimeout !== null && $requestTimeout <= 0.0) {
            throw new \ValueError('The request timeout must be positive or null');
        }
    }

    /**
     * From a URL: tarantool://user:password@host:port, or tarantool://user:password@localhost?unix_socket=/path.
     * Without a user the session is guest's.
     */
    public static function fromUrl(#[\SensitiveParameter] string $url, float $connectTimeout = 10.0, ?float $requestTimeout = null): self
    {
        $parts = \parse_url($url);
        if ($parts === false || \strtolower($parts['scheme'] ?? '') !== 'tarantool') {
            throw new \ValueError('A Tarantool URL starts with tarantool://');
        }
        \parse_str($parts['query'] ?? '', $query);
        $socket = isset($query['unix_socket']) && \is_string($query['unix_socket']) ? $query['unix_socket'] : null;

        return new self(
            $parts['host'] ?? '127.0.0.1',
            $parts['port'] ?? 3301,
            \rawurldecode($parts['user'] ?? 'guest'),
            \rawurldecode($parts['pass'] ?? ''),
            $socket,
            $connectTimeout,
            $requestTimeout,
        );
    }

    public function with(#[\SensitiveParameter] ?string $password = null, ?float $requestTimeout = null, ?float $connectTimeout = null): self
    {
        return new self(
            $this->host,
            $this->port,
            $this->user,
            $password ?? $this->password,
            $this->unixSocket,
            $connectTimeout ?? $this->connectTimeout,
            $requestTimeout ?? $this->requestTimeout,
            $this->extensions,
        );
    }

    /** The target for messages, never the password. */
    public function describe(): string
    {
        return \sprintf('%s@%s', $this->user, $this->unixSocket !== null ? 'unix:' . $this->unixSocket : $this->host . ':' . $this->port);
    }
}
