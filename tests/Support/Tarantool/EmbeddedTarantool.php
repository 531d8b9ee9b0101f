<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Tarantool;

/**
 * The checkout's private Tarantool (scripts/tarantool), started on first use and left running
 * for the rest of the run; scripts/test stops it at the end.
 */
final class EmbeddedTarantool
{
    private static ?string $url = null;

    /** tarantool:// URL of the user bobbin (chap-sha1, allowed everything). */
    public static function url(): string
    {
        if (self::$url === null) {
            self::$url = \getenv('BOBBIN_TEST_TARANTOOL_URL') ?: self::script('start', 'url');
        }

        return self::$url;
    }

    /** Runs Lua as the administrator (outside the code under test) and returns the console's YAML answer. */
    public static function admin(string $lua): string
    {
        self::url();

        return self::script('eval ' . \escapeshellarg($lua));
    }

    public static function restart(): void
    {
        self::url();
        self::script('restart');
    }

    public static function stop(): void
    {
        self::script('stop');
    }

    public static function start(): void
    {
        self::script('start');
    }

    private static function script(string ...$commands): string
    {
        $output = '';
        foreach ($commands as $command) {
            // Every inherited descriptor above stderr closed: a server started from here must
            // not keep PHPUnit's pipes open.
            $line = 'for fd in $(ls /proc/$$/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done; '
                . \dirname(__DIR__, 3) . '/scripts/tarantool ' . $command . ' 2>&1';
            $lines = [];
            \exec('/bin/bash -c ' . \escapeshellarg($line), $lines, $status);
            if ($status !== 0) {
                throw new \RuntimeException("scripts/tarantool $command failed: " . \implode("\n", $lines));
            }
            $output = \implode("\n", \array_filter($lines, static fn (string $l): bool => !\str_starts_with($l, '[bobbin]')));
        }

        return \trim($output);
    }
}
