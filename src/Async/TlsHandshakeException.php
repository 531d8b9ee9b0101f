<?php

declare(strict_types=1);

namespace Bobbin\Async;

/** The TLS handshake failed; the message is OpenSSL's reason (a certificate, a protocol version…). */
final class TlsHandshakeException extends \RuntimeException
{
}
