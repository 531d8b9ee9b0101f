<?php

declare(strict_types=1);

namespace Bobbin\Http\StaticFiles;

use Bobbin\Http\Message\Response;

/**
 * The contents of small static files kept in the worker's memory, as nginx's open_file_cache
 * keeps descriptors: a request for one then costs one stat() of its path (which every request
 * makes anyway) instead of open, fstat, read and close. An entry is used only while the file's
 * inode, size, modification and change times are the ones it was read with, so a replaced or
 * rewritten file is read again at once (a rewrite of the same size within the same second as
 * the read goes unseen, as it does for the ETag).
 *
 * Bounded: files up to MAX_FILE_BYTES, MAX_ENTRIES entries and MAX_TOTAL_BYTES together, the
 * oldest entry going first. The plain 200 answer of each (no condition, no range) is kept with
 * it: the same immutable response serves every such request.
 *
 * @internal one per StaticFilesHandler
 */
final class SmallFiles
{
    public const MAX_FILE_BYTES = 65536;
    private const MAX_ENTRIES = 1024;
    private const MAX_TOTAL_BYTES = 8388608;

    /** @var array<string, array{string, string, array<string, Response>}> real path => [stat key, contents, the plain 200 by variant] */
    private array $entries = [];
    private int $bytes = 0;

    /**
     * The file's contents, read now or remembered; null when it cannot be read whole as stat()
     * described it (it changed meanwhile: the caller reads it another way).
     *
     * @param array{size: int, mtime: int, ino: int, ctime: int} $stat
     */
    public function contents(string $real, array $stat): ?string
    {
        $key = self::key($stat);
        $entry = $this->entries[$real] ?? null;
        if ($entry !== null && $entry[0] === $key) {
            return $entry[1];
        }
        $contents = @\file_get_contents($real, false, null, 0, self::MAX_FILE_BYTES + 1);
        if ($contents === false || \strlen($contents) !== $stat['size']) {
            return null;
        }
        $this->forget($real);
        while ($this->entries !== [] && (\count($this->entries) >= self::MAX_ENTRIES || $this->bytes + \strlen($contents) > self::MAX_TOTAL_BYTES)) {
            $this->forget((string) \array_key_first($this->entries));
        }
        $this->entries[$real] = [$key, $contents, []];
        $this->bytes += \strlen($contents);

        return $contents;
    }

    /**
     * The plain 200 of $real kept for $variant (what else the answer depends on: the name it
     * was asked by, its coding, whether siblings exist), while the file is as $stat describes it.
     *
     * @param array{size: int, mtime: int, ino: int, ctime: int} $stat
     */
    public function keptResponse(string $real, array $stat, string $variant): ?Response
    {
        $entry = $this->entries[$real] ?? null;
        if ($entry === null || $entry[0] !== self::key($stat)) {
            return null;
        }

        return $entry[2][$variant] ?? null;
    }

    /** Keeps $response as the plain 200 of $real for $variant (contents() read it first); returns it. */
    public function keepResponse(string $real, string $variant, Response $response): Response
    {
        if (isset($this->entries[$real])) {
            $this->entries[$real][2][$variant] = $response;
        }

        return $response;
    }

    /** @param array{size: int, mtime: int, ino: int, ctime: int} $stat */
    private static function key(array $stat): string
    {
        return $stat['ino'] . '-' . $stat['size'] . '-' . $stat['mtime'] . '-' . $stat['ctime'];
    }

    private function forget(string $real): void
    {
        if (isset($this->entries[$real])) {
            $this->bytes -= \strlen($this->entries[$real][1]);
            unset($this->entries[$real]);
        }
    }
}
