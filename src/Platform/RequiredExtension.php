<?php

declare(strict_types=1);

namespace Bobbin\Platform;

/** Checks, when a part of Bobbin starts, that the PHP extensions it needs are loaded. */
final class RequiredExtension
{
    /** Extensions Debian builds into its CLI package rather than shipping as a module. */
    private const IN_CLI = ['pcntl' => true];
    /** Extensions Debian ships in php8.x-common, beside others. */
    private const IN_COMMON = ['ffi' => true, 'posix' => true, 'sockets' => true, 'shmop' => true, 'sysvsem' => true];
    /** Extensions whose Debian package is named otherwise. */
    private const PACKAGE = ['pdo_pgsql' => 'pgsql', 'mysqli' => 'mysql', 'pdo_mysql' => 'mysql'];

    /**
     * @param string $needer what needs it, as the start of a sentence ("bin/bobbin serve")
     * @throws MissingExtensionException
     */
    public static function check(string $extension, string $needer): void
    {
        if (!\extension_loaded($extension)) {
            throw new MissingExtensionException($extension, $needer);
        }
    }

    /**
     * @param list<string> $extensions
     * @throws MissingExtensionException naming the first one missing
     */
    public static function checkAll(array $extensions, string $needer): void
    {
        foreach ($extensions as $extension) {
            self::check($extension, $needer);
        }
    }

    /** The Debian package that brings $extension to this PHP version, e.g. php8.2-pgsql. */
    public static function debianPackage(string $extension): string
    {
        $prefix = 'php' . \PHP_MAJOR_VERSION . '.' . \PHP_MINOR_VERSION . '-';
        $name = \strtolower($extension);

        return match (true) {
            isset(self::IN_CLI[$name]) => $prefix . 'cli',
            isset(self::IN_COMMON[$name]) => $prefix . 'common',
            default => $prefix . (self::PACKAGE[$name] ?? $name),
        };
    }
}
