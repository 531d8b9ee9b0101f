<?php

declare(strict_types=1);

namespace Bobbin\Platform;

/**
 * A part of Bobbin was used in a PHP that lacks an extension it needs. composer.json only
 * suggests such extensions (an application without PostgreSQL needs no pgsql), so the check
 * happens here, when the part starts, with a message that says what to install.
 */
final class MissingExtensionException extends \RuntimeException
{
    public function __construct(public readonly string $extension, string $needer)
    {
        parent::__construct(\sprintf(
            '%s needs the PHP extension "%s", which this PHP (%s, %s SAPI) has not loaded: on Debian or Ubuntu install the package %s (apt-get install %s), elsewhere enable ext-%s',
            $needer,
            $extension,
            \PHP_VERSION,
            \PHP_SAPI,
            RequiredExtension::debianPackage($extension),
            RequiredExtension::debianPackage($extension),
            $extension,
        ));
    }
}
