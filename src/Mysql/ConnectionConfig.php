<?php

declare(strict_types=1);

namespace Bobbin\Mysql;

use Bobbin\Async\TlsVerification;
use Bobbin\Sql\SessionSettings;

/** How to open and use one connection to MySQL or MariaDB. */
final class ConnectionConfig
{
    /**
     * @param string $host a host name or IP address (TCP), ignored when $unixSocket is set
     * @param string|null $unixSocket path of the server's unix socket
     * @param float $connectTimeout seconds for the whole connect, including TLS and authentication
     * @param float|null $queryTimeout default per-statement bound; the statement is killed on the server when it passes
     * @param int $statementCacheSize prepared statements kept per connection (0: prepared, run and closed each time)
     * @param bool $decodeJson JSON columns come back decoded (arrays) instead of as strings
     * @param TlsMode $tls whether to encrypt (Preferred: when the server offers it; Required: or fail);
     *                     either way the server's certificate and name are verified
     * @param string|null $tlsCa the CA certificate file to verify the server with (else the system's)
     * @param bool $tlsInsecure encrypt WITHOUT checking the server's certificate and name (tls_insecure=1):
     *                          anyone in the network path can then read and change the traffic
     * @param bool $allowMultipleStatements let one query string hold several statements (CLIENT_MULTI_STATEMENTS)
     * @param array<string, string> $attributes connection attributes sent to the server (program name…)
     * @param string|null $serverPublicKey caching_sha2_password: the server's RSA public key (PEM), else it is asked for
     */
    public function __construct(
        public readonly string $host = '127.0.0.1',
        public readonly int $port = 3306,
        public readonly string $user = 'root',
        #[\SensitiveParameter] public readonly string $password = '',
        public readonly string $database = '',
        public readonly ?string $unixSocket = null,
        public readonly float $connectTimeout = 10.0,
        public readonly ?float $queryTimeout = null,
        public readonly int $statementCacheSize = 256,
        public readonly bool $decodeJson = false,
        public readonly TlsMode $tls = TlsMode::Preferred,
        public readonly ?string $tlsCa = null,
        public readonly bool $tlsInsecure = false,
        public readonly bool $allowMultipleStatements = false,
        public readonly array $attributes = ['_client_name' => 'bobbin', 'program_name' => 'bobbin'],
        public readonly ?string $serverPublicKey = null,
    ) {
        SessionSettings::check($connectTimeout, $queryTimeout, $statementCacheSize);
    }

    /**
     * From a URL: mysql://user:password@host:port/database?unix_socket=/path&tls=required&tls_ca=/ca.pem
     * (mariadb:// is the same). Options in the query string: unix_socket, tls
     * (disabled|preferred|required), tls_ca, tls_insecure (1: no verification), multi_statements (0|1);
     * the named arguments override the URL's.
     */
    public static function fromUrl(
        #[\SensitiveParameter] string $url,
        float $connectTimeout = 10.0,
        ?float $queryTimeout = null,
        int $statementCacheSize = 256,
        bool $decodeJson = false,
    ): self {
        $parts = \parse_url($url);
        if ($parts === false || !isset($parts['scheme']) || !\in_array(\strtolower($parts['scheme']), ['mysql', 'mariadb'], true)) {
            throw new \ValueError('A MySQL URL starts with mysql:// or mariadb://');
        }
        \parse_str($parts['query'] ?? '', $query);
        $option = static fn (string $name): ?string => isset($query[$name]) && \is_string($query[$name]) ? $query[$name] : null;
        $tls = TlsMode::tryFrom(\strtolower($option('tls') ?? 'preferred'))
            ?? throw new \ValueError('tls must be disabled, preferred or required');
        $flag = static fn (?string $value, bool $default): bool => $value === null ? $default : \in_array(\strtolower($value), ['1', 'true', 'yes', 'on'], true);

        return new self(
            $parts['host'] ?? 'localhost',
            $parts['port'] ?? 3306,
            \rawurldecode($parts['user'] ?? 'root'),
            \rawurldecode($parts['pass'] ?? ''),
            \rawurldecode(\ltrim($parts['path'] ?? '', '/')),
            $option('unix_socket') ?? $option('socket'),
            $connectTimeout,
            $queryTimeout,
            $statementCacheSize,
            $decodeJson,
            $tls,
            $option('tls_ca'),
            TlsVerification::insecureFromQuery($query),
            $flag($option('multi_statements'), false),
        );
    }

    /**
     * Whether TLS checks the server's certificate and host name: always, unless the settings
     * asked by name for encryption without it (tls_insecure=1). In `preferred` too: a
     * certificate that cannot be verified is refused, never encrypted to anyway and never a
     * reason to go on in clear text (docs/MYSQL.md, "TLS").
     */
    public function verifiesTls(): bool
    {
        return !$this->tlsInsecure;
    }

    /** The same settings with others for some of them (named arguments of the constructor). */
    public function with(mixed ...$changes): self
    {
        $settings = \get_object_vars($this);

        return new self(...\array_merge($settings, $changes));
    }

    /** The target without the password, for error messages and logs. */
    public function describe(): string
    {
        $where = $this->unixSocket !== null ? 'unix:' . $this->unixSocket : $this->host . ':' . $this->port;

        return \sprintf('%s@%s/%s', $this->user, $where, $this->database);
    }
}
