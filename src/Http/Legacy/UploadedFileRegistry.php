<?php

declare(strict_types=1);

namespace Bobbin\Http\Legacy;

/**
 * Makes `is_uploaded_file()` and `move_uploaded_file()` accept the files of the request a
 * script's process serves, as PHP-FPM's do: PHP accepts only the paths its SAPI registered in
 * `SG(rfc1867_uploaded_files)` while reading a multipart body, and the CLI never reads one, so
 * the table is empty. In the child, before the script, each `$_FILES[…]['tmp_name']` is put in
 * that table (through FFI, PHP's own `_zend_new_array()` and
 * `zend_hash_str_add_empty_element()`), and PHP's functions do the rest: a path not in it is
 * refused, a moved file leaves it.
 *
 * The table's place in `sapi_globals` is found, not assumed: it is the NULL pointer just before
 * `SG(post_max_size)`, whose value PHP's ini gives (main/SAPI.h: `rfc1867_uploaded_files`, then
 * `post_max_size`, in every PHP 8). Exactly one such slot must be found in the head of the
 * struct, or nothing is written and the two functions return false as under the CLI.
 *
 * @internal used by IsolatedLegacyLoop in a script's process (never in a worker: the table
 * would outlive the request)
 */
final class UploadedFileRegistry
{
    private const DECLARATIONS = 'typedef union { uint64_t word[64]; void *pointer[64]; } bobbin_sapi_globals_head;'
        . ' extern bobbin_sapi_globals_head sapi_globals;'
        . ' void *_zend_new_array(uint32_t size);'
        . ' void *zend_hash_str_add_empty_element(void *ht, const char *key, size_t len);';
    /** Words of sapi_globals searched: the field lies about 400 bytes in (52 words in PHP 8.2). */
    private const WORDS = 64;

    private static ?\FFI $ffi = null;
    private static ?int $slot = null;

    private function __construct()
    {
    }

    /** In the parent, once: binds the calls and finds the table's slot; false when it cannot. */
    public static function bind(): bool
    {
        if (self::$slot !== null) {
            return true;
        }
        try {
            $ffi = \extension_loaded('ffi') ? \FFI::cdef(self::DECLARATIONS) : null;
        } catch (\Throwable) {
            $ffi = null;
        }
        $postMaxSize = \ini_parse_quantity((string) \ini_get('post_max_size'));
        if ($ffi === null || $postMaxSize <= 0) {
            return false; // 0: "no limit" would match every empty word
        }
        $found = [];
        for ($i = 1; $i < self::WORDS; $i++) {
            // @phpstan-ignore property.notFound (a C variable of the FFI scope)
            $words = $ffi->sapi_globals->word;
            if ($words[$i] === $postMaxSize && $words[$i - 1] === 0) {
                $found[] = $i - 1;
            }
        }
        if (\count($found) !== 1) {
            return false;
        }
        self::$ffi = $ffi;
        self::$slot = $found[0];

        return true;
    }

    /**
     * In a script's process: the request's uploaded files, $_FILES as PHP shapes it.
     *
     * @param array<array-key, mixed> $files
     */
    public static function register(array $files): void
    {
        $ffi = self::$ffi;
        $slot = self::$slot;
        $paths = self::temporaryPaths($files);
        if ($ffi === null || $slot === null || $paths === []) {
            return;
        }
        // @phpstan-ignore property.notFound (a C variable of the FFI scope)
        $table = $ffi->sapi_globals->pointer[$slot];
        if ($table === null || \FFI::isNull($table)) {
            // @phpstan-ignore method.notFound (declared in DECLARATIONS)
            $table = $ffi->_zend_new_array(\count($paths));
            // @phpstan-ignore property.notFound (a C variable of the FFI scope)
            $ffi->sapi_globals->pointer[$slot] = $table;
        }
        foreach ($paths as $path) {
            // @phpstan-ignore method.notFound (declared in DECLARATIONS)
            $ffi->zend_hash_str_add_empty_element($table, $path, \strlen($path));
        }
    }

    /**
     * @param array<array-key, mixed> $files
     * @return list<string>
     */
    private static function temporaryPaths(array $files): array
    {
        $paths = [];
        foreach ($files as $entry) {
            // One file: tmp_name is its path; a field with brackets: a tree of paths under tmp_name.
            $leaves = \is_array($entry) ? ($entry['tmp_name'] ?? null) : null;
            if (\is_string($leaves)) {
                $leaves = [$leaves];
            }
            if (\is_array($leaves)) {
                \array_walk_recursive($leaves, static function (mixed $path) use (&$paths): void {
                    if (\is_string($path) && $path !== '') {
                        $paths[] = $path;
                    }
                });
            }
        }

        return $paths;
    }
}
