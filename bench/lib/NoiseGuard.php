<?php

declare(strict_types=1);

namespace Bobbin\Bench;

/**
 * Looks at how busy the machine is before a measurement (from /proc/stat over one second) and
 * waits, up to a bound, for other work to finish; a measurement taken on a busy machine is
 * marked noisy instead of being silently mixed with quiet ones.
 */
final class NoiseGuard
{
    public function __construct(
        private readonly float $threshold,
        private readonly int $maxWaitSeconds,
        private readonly Progress $progress,
    ) {
    }

    /** @return array{busy: float, noisy: bool} busy is the last measured share, 0..1 */
    public function settle(): array
    {
        $deadline = \microtime(true) + $this->maxWaitSeconds;
        while (true) {
            $busy = self::busyShare(1.0);
            if ($busy <= $this->threshold) {
                return ['busy' => $busy, 'noisy' => false];
            }
            if (\microtime(true) >= $deadline) {
                $this->progress->note(\sprintf('machine still %.0f %% busy; measuring anyway, marked noisy', $busy * 100));

                return ['busy' => $busy, 'noisy' => true];
            }
            $this->progress->status(\sprintf('waiting: machine %.0f %% busy', $busy * 100));
        }
    }

    /** Share of all CPUs' time that was not idle or iowait during the interval. */
    public static function busyShare(float $seconds): float
    {
        $before = self::totals();
        \usleep((int) ($seconds * 1e6));
        $after = self::totals();
        $total = $after['total'] - $before['total'];

        return $total <= 0 ? 0.0 : 1.0 - ($after['idle'] - $before['idle']) / $total;
    }

    /** @return array{total: int, idle: int} */
    private static function totals(): array
    {
        $first = \strtok((string) \file_get_contents('/proc/stat'), "\n");
        $fields = \array_map('intval', \array_slice(\preg_split('~\s+~', \trim((string) $first)) ?: [], 1, 8));

        return ['total' => \array_sum($fields), 'idle' => ($fields[3] ?? 0) + ($fields[4] ?? 0)];
    }
}
