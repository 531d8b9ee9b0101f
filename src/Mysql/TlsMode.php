<?php

declare(strict_types=1);

namespace Bobbin\Mysql;

enum TlsMode: string
{
    /** Never encrypt. */
    case Disabled = 'disabled';
    /** Encrypt when the server offers TLS (over TCP; a unix socket is already private). */
    case Preferred = 'preferred';
    /** Encrypt, or fail to connect. */
    case Required = 'required';
}
