<?php

declare(strict_types=1);

namespace Bobbin\Async;

/**
 * The one rule every client's TLS follows (docs/CLIENTS.md, "TLS"): the server's certificate and
 * host name are verified, and encryption without that check happens only when the settings say
 * `tls_insecure=1` (a URL) or `tlsInsecure: true` (a constructor) — a name that says what it
 * costs. The old `tls_verify=0` is refused rather than read: a setting that turned a check off
 * must not silently turn it back on, nor keep a name that hides the risk.
 */
final class TlsVerification
{
    /** The URL option, the same for every client. */
    public const INSECURE_OPTION = 'tls_insecure';

    /** What a refused certificate's message adds, so the reader knows both ways out. */
    public const HINT = 'the certificate must be signed by the CA given as tls_ca (else one the system trusts) and name the host connected to;'
        . ' tls_insecure=1 encrypts without checking who answers, so anyone in the network path can read and change the traffic';

    private function __construct()
    {
    }

    /**
     * Whether a URL's options ask for unverified encryption.
     *
     * @param array<array-key, mixed> $query the URL's query, as parse_str() reads it
     *
     * @throws \ValueError for tls_verify=0 or a value of tls_insecure that is not a yes or a no
     */
    public static function insecureFromQuery(array $query): bool
    {
        $verify = $query['tls_verify'] ?? null;
        if ($verify !== null && (!\is_string($verify) || !self::isYes($verify))) {
            throw new \ValueError('tls_verify is not an option any more: TLS always verifies the server; to encrypt without checking who answers, say tls_insecure=1');
        }
        $insecure = $query[self::INSECURE_OPTION] ?? null;
        if ($insecure === null) {
            return false;
        }
        if (\is_string($insecure) && self::isYes($insecure)) {
            return true;
        }
        if (\is_string($insecure) && \in_array(\strtolower($insecure), ['0', 'false', 'no', 'off'], true)) {
            return false;
        }
        throw new \ValueError('tls_insecure is 1 (encrypt without verifying the server) or 0');
    }

    private static function isYes(string $value): bool
    {
        return \in_array(\strtolower($value), ['1', 'true', 'yes', 'on'], true);
    }
}
