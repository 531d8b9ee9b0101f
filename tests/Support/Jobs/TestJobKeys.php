<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Jobs;

use Bobbin\Jobs\Security\JobKeys;

/**
 * The jobs key of this test run: random per run, in a file only this user can read, handed to
 * every server and jobs-worker a test starts (--jobs-key-file) so the test process can sign as
 * their callers do.
 */
final class TestJobKeys
{
    private static ?string $key = null;
    private static ?string $file = null;

    public static function key(): string
    {
        return self::$key ??= \base64_encode(\random_bytes(36));
    }

    public static function keys(): JobKeys
    {
        return new JobKeys(self::key());
    }

    /** A key file (mode 600) holding $keys, removed at the end of the run. */
    public static function file(string ...$keys): string
    {
        if ($keys === [] && self::$file !== null) {
            return self::$file;
        }
        $path = (string) \tempnam(\sys_get_temp_dir(), 'bobbin-jobs-key-');
        \chmod($path, 0600);
        \file_put_contents($path, \implode("\n", $keys === [] ? [self::key()] : $keys) . "\n");
        \register_shutdown_function(static fn () => @\unlink($path));
        if ($keys === []) {
            self::$file = $path;
        }

        return $path;
    }

    /** A fresh random key, as another deployment would have. */
    public static function another(): string
    {
        return \base64_encode(\random_bytes(36));
    }
}
