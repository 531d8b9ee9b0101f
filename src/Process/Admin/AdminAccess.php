<?php

declare(strict_types=1);

namespace Bobbin\Process\Admin;

/**
 * Who may read the admin listener (issue 36 item 2). /metrics and /status show the server's
 * inner life (routes, pool sizes, workers, memory): by default the listener takes only a
 * loopback address or a unix socket. Any other address needs a bearer token
 * (--admin-token-file) or an explicit --admin-insecure, and the master says which at start.
 * With a token, every request must carry `Authorization: Bearer TOKEN`, whatever the address.
 */
final class AdminAccess
{
    /** Shortest token accepted: a guessable one protects nothing. */
    public const MIN_TOKEN_BYTES = 16;

    /** @param string|null $tokenDigest SHA-256 of the token: the token itself is kept nowhere */
    private function __construct(public readonly AdminExposure $exposure, private readonly ?string $tokenDigest)
    {
    }

    /**
     * @param string|null $token the bearer token (--admin-token-file's contents), null: none
     *
     * @throws \InvalidArgumentException for a non-local address with neither a token nor --admin-insecure
     */
    public static function for(string $address, #[\SensitiveParameter] ?string $token, bool $insecure): self
    {
        if ($token !== null) {
            if (\strlen($token) < self::MIN_TOKEN_BYTES || \preg_match('/^[\x21-\x7e]+$/D', $token) !== 1) {
                throw new \InvalidArgumentException(\sprintf(
                    '--admin-token-file: the token must be at least %d printable characters without spaces (e.g. openssl rand -hex 32)',
                    self::MIN_TOKEN_BYTES,
                ));
            }

            return new self(AdminExposure::TokenRequired, \hash('sha256', $token));
        }
        if (self::isLocal($address)) {
            return new self(AdminExposure::LocalOnly, null);
        }
        if ($insecure) {
            return new self(AdminExposure::OpenToAnyone, null);
        }
        throw new \InvalidArgumentException(\sprintf(
            '--admin=%s is reachable from other hosts: give --admin-token-file=FILE (a bearer token every request must carry),'
            . ' or --admin-insecure to publish /metrics and /status to anyone who can reach it; or listen on 127.0.0.1, [::1] or unix:/path',
            $address,
        ));
    }

    /**
     * The token in the file: its first line, without the line break.
     *
     * @throws \InvalidArgumentException when it cannot be read
     */
    public static function readTokenFile(string $path): string
    {
        $contents = @\file_get_contents($path);
        if ($contents === false) {
            throw new \InvalidArgumentException(\sprintf('--admin-token-file: cannot read %s', $path));
        }

        return \rtrim(\explode("\n", $contents, 2)[0], "\r");
    }

    /** Whether a request with this Authorization header ('' when it has none) may be answered. */
    public function allows(#[\SensitiveParameter] string $authorization): bool
    {
        if ($this->tokenDigest === null) {
            return true;
        }
        if (\preg_match('/^Bearer +(\S+) *$/iD', $authorization, $m) !== 1) {
            return false;
        }

        // Digests of equal length: hash_equals() then takes the same time whatever the guess.
        return \hash_equals($this->tokenDigest, \hash('sha256', $m[1]));
    }

    /** For the start-up log line. */
    public function describe(): string
    {
        return match ($this->exposure) {
            AdminExposure::LocalOnly => 'local only',
            AdminExposure::TokenRequired => 'bearer token required (--admin-token-file)',
            AdminExposure::OpenToAnyone => 'NO AUTHENTICATION (--admin-insecure): anyone who can reach it reads /metrics and /status',
        };
    }

    /** A unix socket, or a loopback address: only this host reaches it. */
    public static function isLocal(string $address): bool
    {
        if (\str_starts_with($address, 'unix:')) {
            return true;
        }
        if (\preg_match('/^(?:\[([^\]]+)\]|([^:]+)):\d+$/D', $address, $m) !== 1) {
            return false;
        }
        $host = \strtolower($m[1] !== '' ? $m[1] : $m[2]);
        if ($host === 'localhost' || $host === '::1') {
            return true;
        }

        return \filter_var($host, \FILTER_VALIDATE_IP, \FILTER_FLAG_IPV4) !== false && \str_starts_with($host, '127.');
    }
}
