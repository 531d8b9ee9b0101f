<?php

declare(strict_types=1);

namespace Bobbin\Nats;

use Bobbin\Async\TlsVerification;

/** How to reach one NATS server and how the connection behaves: auth, TLS, keep-alive, reconnect, limits. */
final readonly class ConnectionConfig
{
    public function __construct(
        public string $host = '127.0.0.1',
        public int $port = 4222,
        public ?string $user = null,
        #[\SensitiveParameter] public ?string $password = null,
        /** Token auth (nats://TOKEN@host): sent as auth_token, instead of user/password. */
        #[\SensitiveParameter] public ?string $token = null,
        /** Shown by the server (connz) for this client. */
        public string $name = 'bobbin',
        /** Seconds for the TCP connect, TLS and the CONNECT/PING/PONG handshake together. */
        public float $connectTimeout = 5.0,
        /** Seconds between keep-alive PINGs; 0: none. */
        public float $pingInterval = 20.0,
        /** PINGs without a PONG after which the connection counts as dead and is reconnected. */
        public int $maxPingsOut = 2,
        public bool $reconnect = true,
        /** Seconds before the first reconnect attempt, doubling up to $maxReconnectWait. */
        public float $reconnectWait = 0.05,
        public float $maxReconnectWait = 2.0,
        /** Attempts before the connection gives up and closes (-1: never gives up). */
        public int $maxReconnectAttempts = -1,
        /** Bytes of publishes kept while reconnecting; past it publish() throws ConnectionLostException. */
        public int $reconnectBufferBytes = 8 * 1024 * 1024,
        /** Bytes queued for the socket past which publish() waits for the writer (back-pressure). */
        public int $maxPendingBytes = 32 * 1024 * 1024,
        /** Default seconds request() waits for its reply. */
        public float $requestTimeout = 5.0,
        /** TLS even when the server does not ask for it (it always is when the server requires it). */
        public bool $tls = false,
        public ?string $tlsCa = null,
        /** Encrypt WITHOUT checking the server's certificate and name (tls_insecure=1): anyone in the network path can then read and change the traffic. */
        public bool $tlsInsecure = false,
        /** Messages one subscription may hold unread before it drops new ones (a slow consumer). */
        public int $pendingMessagesLimit = 65_536,
        /** Bytes one subscription may hold unread before it drops new ones. */
        public int $pendingBytesLimit = 64 * 1024 * 1024,
        /** Whether this connection receives its own publishes on its subscriptions. */
        public bool $echo = true,
        /** Largest frame accepted from the server, whatever its INFO says. */
        public int $maxPayload = 64 * 1024 * 1024,
    ) {
        if ($connectTimeout <= 0.0 || $requestTimeout <= 0.0) {
            throw new \ValueError('The connect and request timeouts must be positive');
        }
        if ($pingInterval < 0.0 || $maxPingsOut < 1) {
            throw new \ValueError('The ping interval cannot be negative and at least one PING may be outstanding');
        }
        if ($reconnectWait <= 0.0 || $maxReconnectWait < $reconnectWait) {
            throw new \ValueError('The reconnect waits must be positive, the longest at least the first');
        }
        if ($pendingMessagesLimit < 1 || $pendingBytesLimit < 1 || $maxPendingBytes < 1024) {
            throw new \ValueError('The pending limits must be positive');
        }
    }

    /**
     * nats://[user:password@]host[:port][?name=…&tls=1&tls_ca=FILE&tls_insecure=1] or
     * nats://TOKEN@host:port (a user without a password is a token); tls://… requires TLS. The
     * named arguments override the URL's.
     */
    public static function fromUrl(#[\SensitiveParameter] string $url, mixed ...$overrides): self
    {
        $parts = \parse_url($url);
        $scheme = \strtolower((string) ($parts['scheme'] ?? ''));
        if ($parts === false || !\in_array($scheme, ['nats', 'tls'], true) || !isset($parts['host'])) {
            throw new \ValueError(\sprintf('A NATS URL looks like nats://[user:password@]host[:port]: %s', self::mask($url)));
        }
        \parse_str($parts['query'] ?? '', $query);
        $option = static fn (string $name): ?string => isset($query[$name]) && \is_string($query[$name]) ? $query[$name] : null;
        $flag = static fn (?string $value, bool $default): bool => $value === null ? $default : \in_array(\strtolower($value), ['1', 'true', 'yes', 'on'], true);
        $user = isset($parts['user']) ? \rawurldecode($parts['user']) : null;
        $password = isset($parts['pass']) ? \rawurldecode($parts['pass']) : null;
        $settings = [
            'host' => $parts['host'],
            'port' => $parts['port'] ?? 4222,
            'user' => $password === null ? null : $user,
            'password' => $password,
            'token' => $password === null ? $user : null,
            'tls' => $scheme === 'tls' || $flag($option('tls'), false),
            'tlsCa' => $option('tls_ca'),
            'tlsInsecure' => TlsVerification::insecureFromQuery($query),
        ];
        if ($option('name') !== null) {
            $settings['name'] = $option('name');
        }

        return new self(...\array_merge($settings, $overrides));
    }

    /** The same settings with others for some of them (named arguments of the constructor). */
    public function with(mixed ...$changes): self
    {
        return new self(...\array_merge(\get_object_vars($this), $changes));
    }

    /** The server without credentials, for messages and logs. */
    public function describe(): string
    {
        $who = $this->user !== null ? $this->user . ':***@' : ($this->token !== null ? '***@' : '');

        return \sprintf('%s://%s%s:%d', $this->tls ? 'tls' : 'nats', $who, $this->host, $this->port);
    }

    private static function mask(#[\SensitiveParameter] string $url): string
    {
        return (string) \preg_replace('#//[^@/]*@#', '//***@', $url);
    }
}
