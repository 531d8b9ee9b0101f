<?php

declare(strict_types=1);

namespace Bobbin\Redis;

use Bobbin\Async\TlsVerification;

/** How to open and use one connection to Redis. */
final class ConnectionConfig
{
    /**
     * @param string $host a host name or IP address (TCP), ignored when $unixSocket is set
     * @param string|null $unixSocket path of the server's unix socket
     * @param string|null $user the ACL user (null: "default", as AUTH with a password alone)
     * @param string|null $password null: no authentication
     * @param int $database the database SELECTed at connect (0..15 on a default server)
     * @param int $protocol 3: RESP3 through HELLO 3, falling back to RESP2 on a server without it; 2: RESP2
     * @param bool $tls encrypt (rediss://): TLS right after the TCP connect
     * @param string|null $tlsCa the CA certificate file to verify the server with (else the system's)
     * @param bool $tlsInsecure encrypt WITHOUT checking the server's certificate and name (tls_insecure=1):
     *                          anyone in the network path can then read and change the traffic
     * @param float $connectTimeout seconds for the whole connect: TCP, TLS, HELLO/AUTH, SELECT
     * @param float|null $commandTimeout default bound of one command's reply (null: none)
     * @param string $clientName CLIENT SETNAME, seen in CLIENT LIST
     * @param bool $tracking client-side caching: CLIENT TRACKING ON (RESP3 only; see Client)
     */
    public function __construct(
        public readonly string $host = '127.0.0.1',
        public readonly int $port = 6379,
        public readonly ?string $unixSocket = null,
        public readonly ?string $user = null,
        #[\SensitiveParameter] public readonly ?string $password = null,
        public readonly int $database = 0,
        public readonly int $protocol = 3,
        public readonly bool $tls = false,
        public readonly ?string $tlsCa = null,
        public readonly bool $tlsInsecure = false,
        public readonly float $connectTimeout = 5.0,
        public readonly ?float $commandTimeout = null,
        public readonly string $clientName = 'bobbin',
        public readonly bool $tracking = false,
    ) {
        if ($protocol !== 2 && $protocol !== 3) {
            throw new \ValueError('The protocol is 2 (RESP2) or 3 (RESP3, falling back to RESP2)');
        }
        if ($connectTimeout <= 0.0) {
            throw new \ValueError('The connect timeout must be positive');
        }
        if ($commandTimeout !== null && $commandTimeout <= 0.0) {
            throw new \ValueError('The command timeout must be positive or null');
        }
        if ($database < 0) {
            throw new \ValueError('The database number cannot be negative');
        }
        if (\preg_match('/^[!-~]*$/D', $clientName) !== 1) {
            throw new \ValueError('A client name has no spaces or control characters');
        }
    }

    /**
     * From a URL: redis://[user[:password]@]host[:port][/database], rediss://… for TLS, or
     * unix:///path/to/redis.sock. Options in the query string: unix_socket, db (or database),
     * protocol (2|3), tls_ca, tls_insecure (1: no verification, see TlsVerification), timeout (the command timeout, seconds),
     * connect_timeout, name. A password alone (redis://:secret@host) authenticates as "default".
     */
    public static function fromUrl(#[\SensitiveParameter] string $url): self
    {
        $parts = \parse_url($url);
        $scheme = \is_array($parts) ? \strtolower($parts['scheme'] ?? '') : '';
        if (!\is_array($parts) || !\in_array($scheme, ['redis', 'rediss', 'unix'], true)) {
            throw new \ValueError('A Redis URL starts with redis://, rediss:// or unix://');
        }
        \parse_str($parts['query'] ?? '', $query);
        $option = static fn (string $name): ?string => isset($query[$name]) && \is_string($query[$name]) && $query[$name] !== '' ? $query[$name] : null;
        $path = \rawurldecode($parts['path'] ?? '');
        $unixSocket = $option('unix_socket') ?? ($scheme === 'unix' ? $path : null);
        $database = $option('db') ?? $option('database') ?? ($scheme !== 'unix' ? \trim($path, '/') : '');
        if ($database !== '' && \preg_match('/^[0-9]+$/D', $database) !== 1) {
            throw new \ValueError(\sprintf('The database in a Redis URL is a number, not "%s"', $database));
        }
        $number = static function (?string $value, string $name): ?float {
            if ($value === null) {
                return null;
            }
            if (!\is_numeric($value)) {
                throw new \ValueError(\sprintf('%s in a Redis URL is a number of seconds, not "%s"', $name, $value));
            }

            return (float) $value;
        };
        $user = isset($parts['user']) && $parts['user'] !== '' ? \rawurldecode($parts['user']) : null;
        $password = isset($parts['pass']) ? \rawurldecode($parts['pass']) : null;
        if ($password === null && $user !== null && !isset($parts['pass'])) {
            // redis://secret@host: the old single-field form is the password, as in redis-cli.
            [$user, $password] = [null, $user];
        }

        return new self(
            host: $parts['host'] ?? '127.0.0.1',
            port: $parts['port'] ?? 6379,
            unixSocket: $unixSocket,
            user: $user,
            password: $password,
            database: (int) $database,
            protocol: (int) ($option('protocol') ?? 3),
            tls: $scheme === 'rediss',
            tlsCa: $option('tls_ca'),
            tlsInsecure: TlsVerification::insecureFromQuery($query),
            connectTimeout: $number($option('connect_timeout'), 'connect_timeout') ?? 5.0,
            commandTimeout: $number($option('timeout'), 'timeout'),
            clientName: $option('name') ?? 'bobbin',
        );
    }

    /** The same settings with others for some of them (named arguments of the constructor). */
    public function with(mixed ...$changes): self
    {
        return new self(...\array_merge(\get_object_vars($this), $changes));
    }

    /** The target without the password, for error messages and logs. */
    public function describe(): string
    {
        $where = $this->unixSocket !== null ? 'unix:' . $this->unixSocket : ($this->tls ? 'tls:' : '') . $this->host . ':' . $this->port;

        return \sprintf('%s@%s/%d', $this->user ?? 'default', $where, $this->database);
    }
}
