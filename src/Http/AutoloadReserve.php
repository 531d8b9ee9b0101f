<?php

declare(strict_types=1);

namespace Bobbin\Http;

/**
 * One file descriptor held while serving and given up while a class is autoloaded: loading a file
 * takes a descriptor, and the first time the server (or the application) needs a class may be
 * exactly when the application holds every descriptor the open-files limit allows. Without it the
 * class is "not found" and the request fails (DescriptorExhaustionTest).
 *
 * It replaces loading at start every class a request might one day need: code a hello server never
 * runs stayed in opcache's shared memory of every server (issue 41, docs/HTTP.md "Memory of a
 * hello server, issue 41").
 *
 * @internal Server::start() installs it, before it counts the descriptors open (ConnectionLimit)
 */
final class AutoloadReserve
{
    /** @var resource|null */
    private static $spare = null;
    private static ?\Closure $loader = null;

    private function __construct()
    {
    }

    /** Holds the spare descriptor and puts its autoloader first; once per process. */
    public static function install(): void
    {
        if (self::$loader !== null) {
            return;
        }
        $spare = @\fopen('/dev/null', 'rbe');
        if ($spare === false) {
            return; // no /dev/null (a chroot): loading goes on as it would without
        }
        self::$spare = $spare;
        self::$loader = self::load(...);
        \spl_autoload_register(self::$loader, true, true);
    }

    /** Frees the spare, lets the other autoloaders load $class, then takes the spare back. */
    private static function load(string $class): void
    {
        $spare = self::$spare;
        if ($spare === null) {
            return; // a class its own file needs, loaded while the spare is given up: the next loaders run
        }
        self::$spare = null;
        \fclose($spare);
        try {
            foreach (\spl_autoload_functions() as $loader) {
                if ($loader === self::$loader) {
                    continue;
                }
                $loader($class);
                if (\class_exists($class, false) || \interface_exists($class, false) || \trait_exists($class, false)) {
                    return;
                }
            }
        } finally {
            self::$spare = @\fopen('/dev/null', 'rbe') ?: null;
        }
    }
}
