<?php

declare(strict_types=1);

namespace Bobbin\Async;

/**
 * How a client's TLS checks the server (docs/CLIENTS.md, "TLS"): the certificate must be signed
 * by $caFile (null: a CA the system trusts) and name $peerName. $insecure — the settings'
 * `tls_insecure` (TlsVerification), the only way to turn the check off — encrypts without
 * checking who answers.
 */
final class ClientTls
{
    public function __construct(
        public readonly string $peerName,
        public readonly bool $insecure = false,
        public readonly ?string $caFile = null,
    ) {
    }

    public function verifies(): bool
    {
        return !$this->insecure;
    }
}
