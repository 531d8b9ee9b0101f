<?php

declare(strict_types=1);

namespace Bobbin\Http\Legacy;

/**
 * Compiles, in the worker, the regular expressions the document root's files pass to preg_*()
 * as literal strings (--legacy-docroot), so that each script's process inherits them compiled:
 * PHP keeps every pattern it compiled in a per-process cache (PCRE's compiled code and its JIT
 * code), which a PHP-FPM child keeps from one request to the next and a fresh process starts
 * without — a WordPress front page compiled 165 patterns, 3–4 ms of its CPU, on every
 * request. Only patterns written in the files on disk are compiled (read as tokens, not run):
 * what a child inherits is the same for every child and derives from no request, as opcache's
 * compiled scripts. Patterns built at run time are compiled by the script's process, as before.
 *
 * @internal used by IsolatedLegacyLoop
 */
final class RegexCacheWarmer
{
    /** Below PHP's cache size (4096), whose clean-up starts when it is full. */
    private const MAX_PATTERNS = 2048;
    private const MAX_FILES = 20000;
    private const MAX_FILE_BYTES = 4 << 20;
    /** The reading of the files (at the worker's start) stops there: WordPress takes 0.6 s. */
    private const MAX_SECONDS = 5.0;
    /** The functions whose first argument is a pattern. */
    private const FUNCTIONS = ['preg_match', 'preg_match_all', 'preg_replace', 'preg_replace_callback', 'preg_split', 'preg_grep', 'preg_filter'];
    private const DOUBLE_QUOTED_ESCAPES = ['n' => "\n", 'r' => "\r", 't' => "\t", 'v' => "\v", 'e' => "\e", 'f' => "\f", '\\' => '\\', '$' => '$', '"' => '"'];

    private function __construct()
    {
    }

    /** @return int the patterns compiled */
    public static function warm(string $directory): int
    {
        $compiled = 0;
        foreach (self::collectApart($directory) as $pattern) {
            // Compiling is all PHP does with it here; one that does not compile is not kept by
            // PHP, and the script's process reports it as it would have.
            if (@\preg_match($pattern, '') !== false) {
                $compiled++;
            }
        }
        // What a child inherits of this: PHP's last error and PCRE's, as if nothing failed.
        \preg_match('/^/', '');
        \error_clear_last();

        return $compiled;
    }

    /**
     * The literal patterns of the directory's PHP files, read in a process of their own: the
     * tokens of a large tree take megabytes that PHP's allocator would keep in the worker, and
     * every page of the worker is a page each fork copies and each child's exit releases.
     *
     * @return list<string>
     */
    private static function collectApart(string $directory): array
    {
        $pair = @\stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        $pid = $pair === false ? -1 : \pcntl_fork();
        if ($pair === false || $pid === -1) {
            return self::collect($directory);
        }
        if ($pid === 0) {
            // A copy of the worker for a moment: none of the worker's signal handlers runs here.
            foreach ([\SIGTERM, \SIGINT, \SIGHUP, \SIGCHLD] as $signal) {
                \pcntl_signal($signal, \SIG_DFL);
            }
            ChildProcessCalls::dieWithParent();
            \fclose($pair[0]);
            @\fwrite($pair[1], \implode("\0", self::collect($directory)));
            ChildProcessCalls::exitNow(0); // nothing of the worker's shutdown runs here
        }
        \fclose($pair[1]);
        $list = (string) \stream_get_contents($pair[0]);
        \fclose($pair[0]);
        \pcntl_waitpid($pid, $status);

        return $list === '' ? [] : \explode("\0", $list);
    }

    /** @return list<string> */
    private static function collect(string $directory): array
    {
        $patterns = [];
        $deadline = \microtime(true) + self::MAX_SECONDS;
        foreach (self::phpFiles($directory) as $path) {
            if (\microtime(true) > $deadline) {
                break; // a tree this large is warmed in part, rather than hold the worker's start
            }
            $source = @\file_get_contents($path, false, null, 0, self::MAX_FILE_BYTES);
            if (!\is_string($source) || \stripos($source, 'preg_') === false) {
                continue;
            }
            foreach (self::patternsIn($source) as $pattern) {
                if (!\str_contains($pattern, "\0")) {
                    $patterns[$pattern] = true;
                }
                if (\count($patterns) >= self::MAX_PATTERNS) {
                    break 2;
                }
            }
        }

        return \array_map('strval', \array_keys($patterns));
    }

    /**
     * The literal patterns given to preg_*() in a PHP source: `preg_match('/x/i', …)`, not
     * `preg_match($pattern, …)` nor `preg_match('/' . $x . '/', …)`.
     *
     * @return list<string>
     */
    public static function patternsIn(string $source): array
    {
        $tokens = \token_get_all($source); // without TOKEN_PARSE: a file that does not parse is still tokens
        $patterns = [];
        $count = \count($tokens);
        for ($i = 0; $i < $count; $i++) {
            $token = $tokens[$i];
            if (!\is_array($token) || !\in_array($token[0], [\T_STRING, \T_NAME_FULLY_QUALIFIED], true)
                || !\in_array(\strtolower(\ltrim($token[1], '\\')), self::FUNCTIONS, true)
                || self::isMethodOrDeclaration($tokens, $i)) {
                continue;
            }
            $open = self::skipBlank($tokens, $i + 1);
            if (($tokens[$open] ?? null) !== '(') {
                continue;
            }
            $argument = self::skipBlank($tokens, $open + 1);
            $literal = $tokens[$argument] ?? null;
            $after = $tokens[self::skipBlank($tokens, $argument + 1)] ?? null;
            if (\is_array($literal) && $literal[0] === \T_CONSTANT_ENCAPSED_STRING && $after === ',') {
                $patterns[] = self::unquote($literal[1]);
            }
        }

        return $patterns;
    }

    /** @param array<int, array{int, string, int}|string> $tokens */
    private static function isMethodOrDeclaration(array $tokens, int $i): bool
    {
        for ($j = $i - 1; $j >= 0 && \is_array($tokens[$j]) && \in_array($tokens[$j][0], [\T_WHITESPACE, \T_COMMENT], true); $j--) {
            // back over blanks
        }
        $before = $tokens[$j] ?? null;

        return \is_array($before) && \in_array($before[0], [\T_OBJECT_OPERATOR, \T_NULLSAFE_OBJECT_OPERATOR, \T_DOUBLE_COLON, \T_FUNCTION], true);
    }

    /** @param array<int, array{int, string, int}|string> $tokens */
    private static function skipBlank(array $tokens, int $i): int
    {
        while (isset($tokens[$i]) && \is_array($tokens[$i]) && \in_array($tokens[$i][0], [\T_WHITESPACE, \T_COMMENT, \T_DOC_COMMENT], true)) {
            $i++;
        }

        return $i;
    }

    /** The value of a PHP string literal without interpolation ('…' or "…"). */
    private static function unquote(string $literal): string
    {
        $body = \substr($literal, 1, -1);
        if ($literal[0] === "'") {
            return \strtr($body, ['\\\\' => '\\', "\\'" => "'"]);
        }

        return (string) \preg_replace_callback(
            '/\\\\(?:([nrtvef\\\\$"])|([0-7]{1,3})|x([0-9A-Fa-f]{1,2})|u\{([0-9A-Fa-f]+)\})/',
            static fn (array $m): string => match (true) {
                $m[1] !== '' => self::DOUBLE_QUOTED_ESCAPES[$m[1]],
                ($m[2] ?? '') !== '' => \chr(\octdec($m[2]) & 0xFF),
                ($m[3] ?? '') !== '' => \chr((int) \hexdec($m[3])),
                default => \function_exists('mb_chr') ? (string) \mb_chr((int) \hexdec($m[4] ?? '0'), 'UTF-8') : $m[0],
            },
            $body,
        );
    }

    /** @return \Generator<string> */
    private static function phpFiles(string $directory): \Generator
    {
        $files = 0;
        try {
            $tree = new \RecursiveIteratorIterator(
                new \RecursiveDirectoryIterator($directory, \FilesystemIterator::SKIP_DOTS | \FilesystemIterator::FOLLOW_SYMLINKS),
                \RecursiveIteratorIterator::LEAVES_ONLY,
                \RecursiveIteratorIterator::CATCH_GET_CHILD,
            );
            foreach ($tree as $path => $file) {
                if (++$files > self::MAX_FILES) {
                    return;
                }
                if (\str_ends_with((string) $path, '.php')) {
                    yield (string) $path;
                }
            }
        } catch (\UnexpectedValueException) {
            // an unreadable directory: the files found so far
        }
    }
}
