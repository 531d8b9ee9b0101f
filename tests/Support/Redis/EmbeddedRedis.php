<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Redis;

/**
 * The checkout's private redis-server (scripts/redis), started on first use and left running for
 * the rest of the run; scripts/test stops it at the end.
 */
final class EmbeddedRedis
{
    private static ?string $url = null;

    /** redis:// URL over the unix socket, as the ACL user bobbin. */
    public static function url(): string
    {
        if (self::$url === null) {
            self::$url = \getenv('BOBBIN_TEST_REDIS_URL') ?: self::script('start', 'url');
        }

        return self::$url;
    }

    public static function tcpUrl(): string
    {
        self::url();

        return self::script('url --tcp');
    }

    public static function tlsUrl(): string
    {
        self::url();

        return self::script('url --tls');
    }

    /** Runs redis-cli (outside the code under test) and returns its output. */
    public static function cli(string ...$arguments): string
    {
        self::url();

        return self::script('cli ' . \implode(' ', \array_map('escapeshellarg', $arguments)));
    }

    public static function restart(): void
    {
        self::script('restart');
    }

    private static function script(string ...$commands): string
    {
        return self::scriptIn(null, ...$commands);
    }

    /**
     * Runs scripts/redis for the server in $home (BOBBIN_REDIS_HOME; null: the checkout's own)
     * and returns the last command's output.
     */
    public static function scriptIn(?string $home, string ...$commands): string
    {
        $output = '';
        foreach ($commands as $command) {
            // Every inherited descriptor above stderr closed: a server started from here must
            // not keep PHPUnit's pipes open.
            $line = 'for fd in $(ls /proc/$$/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done; '
                . ($home === null ? '' : 'BOBBIN_REDIS_HOME=' . \escapeshellarg($home) . ' ')
                . \dirname(__DIR__, 3) . '/scripts/redis ' . $command . ' 2>&1';
            $lines = [];
            \exec('/bin/bash -c ' . \escapeshellarg($line), $lines, $status);
            if ($status !== 0) {
                throw new \RuntimeException("scripts/redis $command failed: " . \implode("\n", $lines));
            }
            $output = \implode("\n", \array_filter($lines, static fn (string $l): bool => !\str_starts_with($l, '[bobbin]')));
        }

        return \trim($output);
    }
}
