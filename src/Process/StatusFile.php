<?php

declare(strict_types=1);

namespace Bobbin\Process;

use Bobbin\Platform\ByteSize;

/**
 * `<pid-file>.status.json`: the master's view of its workers, replaced atomically (write a
 * temporary file, rename) so a reader never sees half of it.
 */
final class StatusFile
{
    /** @param array<string, mixed> $status */
    public static function write(string $path, array $status): bool
    {
        $temporary = $path . '.' . \getmypid() . '.tmp';
        $json = \json_encode($status, \JSON_PRETTY_PRINT | \JSON_UNESCAPED_SLASHES | \JSON_INVALID_UTF8_SUBSTITUTE);
        if ($json === false || @\file_put_contents($temporary, $json . "\n") === false) {
            return false;
        }
        if (!@\rename($temporary, $path)) {
            @\unlink($temporary);

            return false;
        }

        return true;
    }

    /** @return array<string, mixed>|null */
    public static function read(string $path): ?array
    {
        $json = @\file_get_contents($path);
        if (!\is_string($json)) {
            return null;
        }
        $status = \json_decode($json, true);

        return \is_array($status) ? $status : null;
    }

    /**
     * One line per worker: pid, uptime, requests, in flight, memory.
     *
     * @param array<string, mixed> $status
     * @return list<string>
     */
    public static function describe(array $status, float $now): array
    {
        $master = \is_array($status['master'] ?? null) ? $status['master'] : [];
        $workers = \is_array($status['workers'] ?? null) ? $status['workers'] : [];
        $updated = self::number($status['updated'] ?? $now);
        $lines = [\sprintf(
            'master pid %d, %s, %d worker(s) wanted, generation %d, listening on %s, status of %.1f s ago',
            (int) self::number($master['pid'] ?? 0),
            self::duration($now - self::number($master['started'] ?? $now)),
            (int) self::number($master['workers'] ?? 0),
            (int) self::number($master['generation'] ?? 0),
            \is_string($master['address'] ?? null) ? $master['address'] : '?',
            \max(0.0, $now - $updated),
        )];
        $lines[] = \sprintf('%8s  %-9s  %9s  %10s  %9s  %8s', 'pid', 'state', 'uptime', 'requests', 'in flight', 'memory');
        foreach ($workers as $worker) {
            if (!\is_array($worker)) {
                continue;
            }
            $lines[] = \sprintf(
                '%8d  %-9s  %9s  %10d  %9d  %8s',
                (int) self::number($worker['pid'] ?? 0),
                \is_string($worker['state'] ?? null) ? $worker['state'] : '?',
                self::duration($now - self::number($worker['started'] ?? $now)),
                (int) self::number($worker['requests'] ?? 0),
                (int) self::number($worker['inFlight'] ?? 0),
                ByteSize::format((int) self::number($worker['memory'] ?? 0)),
            );
        }

        return $lines;
    }

    private static function number(mixed $value): float
    {
        return \is_int($value) || \is_float($value) ? (float) $value : 0.0;
    }

    private static function duration(float $seconds): string
    {
        $seconds = (int) \max(0.0, $seconds);
        if ($seconds < 60) {
            return $seconds . 's';
        }
        if ($seconds < 3600) {
            return \sprintf('%dm%02ds', \intdiv($seconds, 60), $seconds % 60);
        }

        return \sprintf('%dh%02dm', \intdiv($seconds, 3600), \intdiv($seconds % 3600, 60));
    }
}
