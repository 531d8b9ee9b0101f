<?php

declare(strict_types=1);

namespace Bobbin\Postgres;

use Bobbin\Postgres\Internal\SslSettings;
use Bobbin\Sql\SessionSettings;

/** How to open and use one connection. */
final class ConnectionConfig
{
    private readonly SslSettings $ssl;

    /**
     * @param string $connectionString libpq key/value ("host=… dbname=…") or URI ("postgresql://…")
     * @param float $connectTimeout seconds for the whole connect, including authentication
     * @param float|null $queryTimeout default per-statement bound; the statement is cancelled on the server when it passes
     * @param int $statementCacheSize prepared statements kept per connection (0: unnamed statements, no cache)
     * @param bool $decodeJson json/jsonb columns come back decoded (arrays) instead of as strings
     * @param bool $persistent classic SAPIs only (PHP-FPM): reuse one pg_pconnect() session per
     *        worker child across requests; the connect blocks, which is the point there. Needs
     *        $statementCacheSize 0, since the statement cache dies with each request.
     * @param bool $tlsInsecure allow sslmode=require (and allow, prefer, verify-ca): encryption WITHOUT
     *        checking the server's certificate and host name, so anyone in the network path can read
     *        and change the traffic; tls_insecure=1 in the connection string says the same
     *
     * @throws \ValueError for an sslmode that does not verify the server without $tlsInsecure
     */
    public function __construct(
        #[\SensitiveParameter]
        public readonly string $connectionString,
        public readonly float $connectTimeout = 10.0,
        public readonly ?float $queryTimeout = null,
        public readonly int $statementCacheSize = 256,
        public readonly bool $decodeJson = false,
        public readonly bool $persistent = false,
        public readonly bool $tlsInsecure = false,
    ) {
        $this->ssl = SslSettings::of($connectionString, $tlsInsecure);
        if ($persistent && $statementCacheSize !== 0) {
            throw new \ValueError('A persistent connection outlives its statement cache: use a statement cache size of 0');
        }
        SessionSettings::check($connectTimeout, $queryTimeout, $statementCacheSize);
    }

    public static function fromConnectionString(
        #[\SensitiveParameter]
        string $connectionString,
        float $connectTimeout = 10.0,
        ?float $queryTimeout = null,
        int $statementCacheSize = 256,
        bool $decodeJson = false,
        bool $persistent = false,
        bool $tlsInsecure = false,
    ): self {
        return new self($connectionString, $connectTimeout, $queryTimeout, $statementCacheSize, $decodeJson, $persistent, $tlsInsecure);
    }

    /**
     * The settings from a libpq URI, the client's own beside it as MySQL's fromUrl() takes them.
     * The URL goes to libpq as it is (its query carries libpq's parameters: sslmode, sslrootcert,
     * application_name, several hosts…; tls_insecure=1 as in any connection string); only its
     * scheme is checked here, so that a key/value string or another database's URL fails now
     * with a clear message instead of later in libpq.
     *
     * @param string $url postgresql://user:password@host:port/database?param=value (or postgres://)
     * @throws \ValueError for anything but a postgresql:// or postgres:// URL, or settings the constructor refuses
     */
    public static function fromUrl(
        #[\SensitiveParameter] string $url,
        float $connectTimeout = 10.0,
        ?float $queryTimeout = null,
        int $statementCacheSize = 256,
        bool $decodeJson = false,
        bool $persistent = false,
        bool $tlsInsecure = false,
    ): self {
        if (\preg_match('#^postgres(?:ql)?://#i', $url) !== 1) {
            // Not the URL itself in the message: it may hold a password.
            throw new \ValueError('A PostgreSQL URL starts with postgresql:// or postgres://');
        }

        return new self($url, $connectTimeout, $queryTimeout, $statementCacheSize, $decodeJson, $persistent, $tlsInsecure);
    }

    /**
     * The same settings with others for some of them (named arguments of the constructor),
     * validated as the constructor validates them.
     */
    public function with(#[\SensitiveParameter] mixed ...$changes): self
    {
        $settings = [
            'connectionString' => $this->connectionString,
            'connectTimeout' => $this->connectTimeout,
            'queryTimeout' => $this->queryTimeout,
            'statementCacheSize' => $this->statementCacheSize,
            'decodeJson' => $this->decodeJson,
            'persistent' => $this->persistent,
            'tlsInsecure' => $this->tlsInsecure,
        ];

        return new self(...\array_merge($settings, $changes));
    }

    /**
     * The string libpq is given: the caller's, with the TLS settings of SslSettings.
     *
     * @internal
     */
    public function libpqString(): string
    {
        return $this->ssl->libpq;
    }

    /**
     * What libpq is given instead when the server turns TLS down, for the default mode only
     * (null: no clear-text fallback — TLS was asked for by name, or turned off).
     *
     * @internal
     */
    public function clearTextFallback(): ?string
    {
        return $this->ssl->clearText;
    }

    /** Whether encryption without verification was asked for (tls_insecure). */
    public function isTlsInsecure(): bool
    {
        return $this->ssl->insecure;
    }

    /** The same settings for a short-lived helper session (a cancel request). */
    public function forHelperSession(): self
    {
        return new self($this->connectionString, $this->connectTimeout, 5.0, 0, false, false, $this->tlsInsecure);
    }

    /** The connection string with any password masked, for error messages and logs. */
    public function describe(): string
    {
        $masked = \preg_replace('/(password\s*=\s*)(\'(?:[^\'\\\\]|\\\\.)*\'|\S+)/i', '$1***', $this->connectionString) ?? '';

        return \preg_replace('#(://[^:/@]*:)[^@]*@#', '$1***@', $masked) ?? '';
    }
}
