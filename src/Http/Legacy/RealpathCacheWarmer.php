<?php

declare(strict_types=1);

namespace Bobbin\Http\Legacy;

/**
 * Fills the worker's realpath cache with the paths of the document root's files and directories
 * (--legacy-docroot), so that each script's process inherits it: PHP resolves every include
 * (`require_once`, opcache's lookup) and every file it opens (WordPress reads its blocks'
 * block.json and styles on each page) through that cache, and a child forked from a worker
 * whose cache never saw the application's paths resolved each of them again, component by
 * component — about 400 lstat() calls per WordPress front page, which a PHP-FPM child, keeping
 * its cache from one request to the next, does not make. Only paths are resolved (no file is
 * read, no code runs); the cache forgets an entry after `realpath_cache_ttl` seconds, so the
 * worker empties it and resolves them again at half that.
 *
 * @internal used by IsolatedLegacyLoop
 */
final class RealpathCacheWarmer
{
    /** Enough for WordPress (about 3,000 files and directories); a larger tree is warmed in part. */
    private const MAX_FILES = 20000;

    private function __construct()
    {
    }

    /** Seconds between two warmings: well within the cache's time to live. */
    public static function interval(): float
    {
        $ttl = (int) \ini_get('realpath_cache_ttl');

        return \max(1.0, \min(60.0, $ttl / 2));
    }

    /** @return int the files and directories resolved */
    public static function warm(string $directory): int
    {
        // PHP never renews an entry it finds (it only drops one past its time to live and
        // resolves the path again): emptied first, every entry made again lives a whole
        // realpath_cache_ttl, so no child forked before the next warming finds one expired — and
        // frees it, resolves its path again with lstat() and writes the worker's heap pages, as
        // half of them did before.
        \clearstatcache(true);
        $files = 0;
        try {
            $tree = new \RecursiveIteratorIterator(
                new \RecursiveDirectoryIterator($directory, \FilesystemIterator::SKIP_DOTS | \FilesystemIterator::FOLLOW_SYMLINKS),
                \RecursiveIteratorIterator::SELF_FIRST,
                \RecursiveIteratorIterator::CATCH_GET_CHILD,
            );
            foreach ($tree as $path => $file) {
                // Under the path as the document root names it and under its real path (a
                // symlinked directory's files are opened by both: WordPress builds paths from
                // __DIR__, which is resolved).
                $real = \realpath((string) $path);
                if ($real !== false && $real !== $path) {
                    \realpath($real);
                }
                if (++$files >= self::MAX_FILES) {
                    break;
                }
            }
        } catch (\UnexpectedValueException) {
            // an unreadable directory: what was resolved so far stays
        }

        return $files;
    }
}
