<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support;

/** nginx + PHP-FPM serving the aircraft application, through apps/aircraft/fpm/ctl. */
final class FpmServer
{
    private function __construct(public readonly int $port)
    {
    }

    /** @param list<string> $options extra ctl options, e.g. --persistent */
    public static function start(string $databaseUrl, array $options = []): self
    {
        $port = self::freePort();
        self::ctl('start', $port, $options, $databaseUrl);

        return new self($port);
    }

    private static function freePort(): int
    {
        $socket = \stream_socket_server('tcp://127.0.0.1:0');
        \assert($socket !== false);
        $name = (string) \stream_socket_get_name($socket, false);
        \fclose($socket);

        return (int) \substr($name, \strrpos($name, ':') + 1);
    }

    public function stop(): void
    {
        self::ctl('stop', $this->port);
    }

    /** @param list<string> $options */
    private static function ctl(string $command, int $port, array $options = [], string $databaseUrl = ''): void
    {
        $script = \dirname(__DIR__, 2) . '/apps/aircraft/fpm/ctl';
        $line = \sprintf(
            'DATABASE_URL=%s %s %s --port=%d --children=4 %s 2>&1',
            \escapeshellarg($databaseUrl),
            \escapeshellarg($script),
            $command,
            $port,
            \implode(' ', \array_map('escapeshellarg', $options)),
        );
        \exec($line, $output, $status);
        if ($status !== 0) {
            throw new \RuntimeException("fpm/ctl $command failed:\n" . \implode("\n", $output));
        }
    }
}
