<?php

declare(strict_types=1);

namespace Bobbin\Postgres\Internal;

/**
 * What libpq is told about TLS, from the caller's connection string (docs/POSTGRES.md, "TLS").
 * libpq's own default (sslmode=prefer) encrypts without checking who answers; here the default
 * verifies the certificate and the host name (verify-full) whenever the server offers TLS, and
 * goes on in clear text only when it offers none — as MySQL's `preferred`. The modes that
 * encrypt without that check (allow, prefer, require, verify-ca) need tls_insecure=1, which
 * libpq does not know and never sees. Over a unix socket libpq ignores sslmode.
 */
final class SslSettings
{
    /** libpq's answer when the server turned the SSLRequest down. */
    public const NO_TLS_ON_SERVER = 'server does not support SSL';

    public const HINT = 'the certificate must be signed by the CA given as sslrootcert (else one the system trusts) and name the host connected to;'
        . ' sslmode=disable connects in clear text; tls_insecure=1 (with sslmode=require) encrypts without checking who answers,'
        . ' so anyone in the network path can read and change the traffic';

    private const UNVERIFIED_MODES = ['allow', 'prefer', 'require', 'verify-ca'];

    /**
     * @param string $libpq what pg_connect() is given
     * @param string|null $clearText what it is given instead when the server offers no TLS (the default mode only)
     */
    private function __construct(public readonly string $libpq, public readonly ?string $clearText, public readonly bool $insecure)
    {
    }

    /** @throws \ValueError for a mode that does not verify, unless tls_insecure says so */
    public static function of(#[\SensitiveParameter] string $connectionString, bool $insecure): self
    {
        $uri = \preg_match('#^postgres(?:ql)?://#i', $connectionString) === 1;
        $options = $uri ? self::uriOptions($connectionString) : self::keywordOptions($connectionString);
        $insecureOption = $options['tls_insecure'] ?? null;
        if ($insecureOption !== null) {
            $insecure = $insecure || \in_array(\strtolower($insecureOption), ['1', 'true', 'yes', 'on'], true);
            $connectionString = $uri
                ? (string) \preg_replace('/([?&])tls_insecure=[^&#]*(&|(?=#)|$)/', '$1', $connectionString)
                : (string) \preg_replace('/(?:^|\s)tls_insecure\s*=\s*\S+/', '', $connectionString);
            $connectionString = \rtrim($connectionString, '?&');
        }
        $mode = $options['sslmode'] ?? (\getenv('PGSSLMODE') ?: null);
        $mode = $mode === null ? null : \strtolower($mode);
        if ($mode !== null && \in_array($mode, self::UNVERIFIED_MODES, true) && !$insecure) {
            throw new \ValueError(\sprintf(
                'sslmode=%s encrypts without verifying the server\'s certificate and host name: use sslmode=verify-full (and sslrootcert=FILE),'
                . ' or add tls_insecure=1 to accept that anyone in the network path can read and change the traffic',
                $mode,
            ));
        }
        if ($mode === null && $insecure) {
            return new self($connectionString, null, true); // libpq's own prefer: encrypted when offered, unverified
        }
        if ($mode !== null && $mode !== 'verify-full') {
            return new self($connectionString, null, $insecure);
        }
        $verified = self::withOption($connectionString, $uri, 'sslmode', 'verify-full');
        $rootCertificate = self::systemRootCertificate($options);
        if ($rootCertificate !== null) {
            $verified = self::withOption($verified, $uri, 'sslrootcert', $rootCertificate);
        }

        return new self($verified, $mode === null ? self::withOption($connectionString, $uri, 'sslmode', 'disable') : null, false);
    }

    /**
     * The system's CA bundle where libpq would find none of its own: libpq 15 reads only
     * ~/.postgresql/root.crt (sslrootcert=system came in 16), and verify-full without a root
     * certificate fails even for a server whose certificate a public CA signed.
     *
     * @param array<string, string> $options
     */
    private static function systemRootCertificate(array $options): ?string
    {
        if (isset($options['sslrootcert']) || (\getenv('PGSSLROOTCERT') ?: '') !== '') {
            return null;
        }
        $home = \getenv('HOME') ?: '';
        if ($home !== '' && \is_file($home . '/.postgresql/root.crt')) {
            return null;
        }
        $bundle = \getenv('SSL_CERT_FILE') ?: \openssl_get_cert_locations()['default_cert_file'] ?? '';

        return \is_string($bundle) && $bundle !== '' && \is_readable($bundle) ? $bundle : null;
    }

    /** @return array<string, string> */
    private static function keywordOptions(#[\SensitiveParameter] string $connectionString): array
    {
        \preg_match_all("/(\\w+)\\s*=\\s*('(?:[^'\\\\]|\\\\.)*'|\\S+)/", $connectionString, $matches, \PREG_SET_ORDER);
        $options = [];
        foreach ($matches as [, $name, $value]) {
            $options[\strtolower($name)] = \str_starts_with($value, "'") ? \stripcslashes(\substr($value, 1, -1)) : $value;
        }

        return $options;
    }

    /** @return array<string, string> */
    private static function uriOptions(#[\SensitiveParameter] string $connectionString): array
    {
        \parse_str((string) (\parse_url($connectionString, \PHP_URL_QUERY) ?? ''), $query);
        $options = [];
        foreach ($query as $name => $value) {
            if (\is_string($value)) {
                $options[\strtolower((string) $name)] = $value;
            }
        }

        return $options;
    }

    private static function withOption(#[\SensitiveParameter] string $connectionString, bool $uri, string $name, string $value): string
    {
        if ($uri) {
            return $connectionString . (\str_contains($connectionString, '?') ? '&' : '?') . $name . '=' . \rawurlencode($value);
        }
        $quoted = \preg_match('/^[^\s\'\\\\]+$/D', $value) === 1 ? $value : "'" . \addcslashes($value, "'\\") . "'";

        return \rtrim($connectionString) . ' ' . $name . '=' . $quoted;
    }
}
