<?php

declare(strict_types=1);

namespace Bobbin\Process;

/**
 * Makes a new worker compile the files that changed on disk. Forked workers share the master's
 * opcache, and the CLI's "request time" stays the master's start time, so with
 * opcache.revalidate_freq a worker would otherwise keep serving the code cached before a reload.
 */
final class OpcacheRefresh
{
    /** @return int how many cached scripts were checked */
    public static function invalidateChangedScripts(): int
    {
        \clearstatcache(true);
        if (!\function_exists('opcache_get_status') || !\function_exists('opcache_invalidate')) {
            return 0;
        }
        $status = @\opcache_get_status(true);
        if (!\is_array($status) || !\is_array($status['scripts'] ?? null)) {
            return 0;
        }
        $checked = 0;
        foreach (\array_keys($status['scripts']) as $path) {
            // Without force, a script is dropped only when its file's mtime differs from the cached one
            // (or always when opcache.validate_timestamps is off).
            @\opcache_invalidate((string) $path, false);
            $checked++;
        }

        return $checked;
    }
}
