<?php

declare(strict_types=1);

namespace Bobbin\Process;

/**
 * --watch, for development: the master polls the PHP files under APP_FILE's folder (no
 * extension needed: a stat per file every half second) and asks for a reload once they have
 * stopped changing for a moment, so a save that touches several files, or a `git checkout`, is
 * one reload. Folders that are not the application's code, or too large to poll, are skipped.
 *
 * filemtime() has whole seconds: two saves within a second may keep it. The size and inode are
 * compared too, and a file changed within the last two seconds by a checksum of its contents.
 */
final class CodeWatch
{
    /** Not the application's own code, or too many files to stat twice a second. */
    private const SKIPPED = ['vendor', 'var', 'node_modules', '.git', 'cache', 'storage'];
    private const RECENT_SECONDS = 2;

    /** @var array<string, string> path => what was seen of it */
    private array $seen;
    private float $nextScan = 0.0;
    private ?string $pending = null;
    private float $lastChangeAt = 0.0;

    public function __construct(
        private readonly string $directory,
        private readonly float $interval = 0.5,
        private readonly float $quiet = 0.3,
    ) {
        $this->seen = $this->scan();
    }

    /** The directory watched (APP_FILE's). */
    public function directory(): string
    {
        return $this->directory;
    }

    /**
     * Call every turn; cheap between scans.
     *
     * @return string|null a changed file (the first seen) once the changes have settled; null otherwise
     */
    public function poll(float $now): ?string
    {
        if ($now < $this->nextScan) {
            return null;
        }
        $this->nextScan = $now + $this->interval;
        $snapshot = $this->scan();
        $changed = self::firstDifference($this->seen, $snapshot);
        $this->seen = $snapshot;
        if ($changed !== null) {
            $this->pending ??= $changed;
            $this->lastChangeAt = $now;

            return null;
        }
        if ($this->pending === null || $now - $this->lastChangeAt < $this->quiet) {
            return null;
        }
        $file = $this->pending;
        $this->pending = null;

        return $file;
    }

    /** @return array<string, string> */
    private function scan(): array
    {
        \clearstatcache();
        $seen = [];
        $now = \time();
        $directories = [$this->directory];
        while (($directory = \array_pop($directories)) !== null) {
            foreach (@\scandir($directory) ?: [] as $name) {
                if ($name === '.' || $name === '..') {
                    continue;
                }
                $path = $directory . '/' . $name;
                if (\is_dir($path) && !\is_link($path)) {
                    if (!\in_array($name, self::SKIPPED, true)) {
                        $directories[] = $path;
                    }
                    continue;
                }
                if (!\str_ends_with($name, '.php')) {
                    continue;
                }
                $stat = @\stat($path);
                if ($stat === false) {
                    continue;
                }
                $seen[$path] = $stat['mtime'] . ':' . $stat['size'] . ':' . $stat['ino']
                    . ($now - $stat['mtime'] < self::RECENT_SECONDS ? ':' . \hash_file('crc32b', $path) : '');
            }
        }

        return $seen;
    }

    /**
     * @param array<string, string> $before
     * @param array<string, string> $after
     */
    private static function firstDifference(array $before, array $after): ?string
    {
        foreach ($after as $path => $seen) {
            if (($before[$path] ?? null) !== $seen) {
                // A file that stopped being recent loses its checksum: only its stat says whether it changed.
                if (isset($before[$path]) && \str_starts_with($before[$path], $seen . ':')) {
                    continue;
                }

                return $path;
            }
        }
        foreach ($before as $path => $seen) {
            if (!isset($after[$path])) {
                return $path;
            }
        }

        return null;
    }
}
