<?php

declare(strict_types=1);

namespace Bobbin\Process\Admin;

/** Who can read the admin listener, as its settings decided (AdminAccess). */
enum AdminExposure
{
    /** Loopback or a unix socket, no token: whoever runs on this host. */
    case LocalOnly;
    /** Any address; every request carries the bearer token. */
    case TokenRequired;
    /** Another host's reach without a token, by --admin-insecure. */
    case OpenToAnyone;
}
