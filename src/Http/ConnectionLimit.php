<?php

declare(strict_types=1);

namespace Bobbin\Http;

use Bobbin\Async\Async;
use Psr\Log\LoggerInterface;

/**
 * The number of connections one server can hold, settled once at start from what actually
 * bounds it: --max-connections (0: no bound of its own), the process's open-files limit
 * (RLIMIT_NOFILE) and the loop driver's descriptor ceiling (1,024 for select()), minus the
 * descriptors already open and a reserve for the application (database connections, files).
 * Holding the limit by not accepting is what keeps a worker from failing on a descriptor it
 * cannot have or cannot watch.
 *
 * @internal owned by Server (ServerConfig::$maxConnections)
 */
final readonly class ConnectionLimit
{
    /** Descriptors left for the application below the limit, at most. */
    public const RESERVE = 64;
    /** What --max-connections=0 stands for when nothing else bounds the server. */
    public const UNBOUNDED_DEFAULT = 100_000;

    private function __construct(
        public int $connections,
        /** Why the limit is lower than asked for, or '' when it is not. */
        public string $lowered,
    ) {
    }

    /**
     * @param int $configured --max-connections (0: as many as the rest allows)
     * @param int|null $openFiles the soft RLIMIT_NOFILE, null when unlimited
     * @param int|null $driverCeiling the loop driver's highest watchable descriptor count, null when none
     * @param int $openDescriptors descriptors the process has open already
     */
    public static function settle(int $configured, ?int $openFiles, ?int $driverCeiling, int $openDescriptors): self
    {
        $bound = null;
        $because = '';
        if ($openFiles !== null) {
            $bound = $openFiles;
            $because = \sprintf('the open-files limit (ulimit -n) is %d', $openFiles);
        }
        if ($driverCeiling !== null && ($bound === null || $driverCeiling < $bound)) {
            $bound = $driverCeiling;
            $because = \sprintf('the loop driver can watch descriptors below %d only (select(); BOBBIN_LOOP_DRIVER=epoll has no such ceiling)', $driverCeiling);
        }
        $wanted = $configured > 0 ? $configured : self::UNBOUNDED_DEFAULT;
        if ($bound === null) {
            return new self($wanted, '');
        }
        $reserve = \max(4, \min(self::RESERVE, \intdiv($bound, 8)));
        $allowed = \max(1, $bound - $openDescriptors - $reserve);
        if ($allowed >= $wanted) {
            return new self($wanted, '');
        }

        return new self($allowed, \sprintf(
            '%s, %d descriptors are open and %d are kept for the application',
            $because,
            $openDescriptors,
            $reserve,
        ));
    }

    /**
     * The limit in force for a server starting now: the soft open-files limit raised to the hard
     * one first, then settle() with this process's figures; a limit lower than --max-connections
     * asked for is said (a notice), one lower than the default an info line.
     */
    public static function inForce(int $configured, LoggerInterface $logger): int
    {
        $raised = self::raiseOpenFilesLimit();
        if ($raised !== null) {
            $logger->info('Raised the open-files limit (ulimit -n) from {from} to {to}', ['from' => $raised[0], 'to' => $raised[1]]);
        }
        $limit = self::settle($configured, self::openFilesLimit(), Async::descriptorCeiling(), self::openDescriptors());
        if ($limit->lowered !== '') {
            if ($configured > 0) {
                $logger->notice('--max-connections lowered from {max} to {allowed}: {why}', [
                    'max' => $configured, 'allowed' => $limit->connections, 'why' => $limit->lowered,
                ]);
            } else {
                $logger->info('Holding up to {allowed} connections: {why}', ['allowed' => $limit->connections, 'why' => $limit->lowered]);
            }
        }

        return $limit->connections;
    }

    /**
     * Raises the soft open-files limit to the hard one, as servers do at start, so the limit an
     * operator set with the hard value is the one in force.
     *
     * @return array{int, int}|null the soft limit before and after, or null when nothing changed
     */
    public static function raiseOpenFilesLimit(): ?array
    {
        if (!\function_exists('posix_getrlimit') || !\function_exists('posix_setrlimit')) {
            return null;
        }
        $limits = \posix_getrlimit();
        $soft = \is_array($limits) ? ($limits['soft openfiles'] ?? null) : null;
        $hard = \is_array($limits) ? ($limits['hard openfiles'] ?? null) : null;
        if (!\is_numeric($soft) || $hard === null || ($hard !== 'unlimited' && (int) $hard <= (int) $soft)) {
            return null;
        }
        // The kernel refuses more than fs.nr_open even when the hard limit says unlimited.
        $target = $hard === 'unlimited' ? self::kernelMaximum() : (int) $hard;
        if ($target <= (int) $soft || !@\posix_setrlimit(\POSIX_RLIMIT_NOFILE, $target, $hard === 'unlimited' ? $target : (int) $hard)) {
            return null;
        }

        return [(int) $soft, $target];
    }

    /** The soft open-files limit now, null when unlimited. */
    public static function openFilesLimit(): ?int
    {
        $limits = \function_exists('posix_getrlimit') ? \posix_getrlimit() : false;
        $soft = \is_array($limits) ? ($limits['soft openfiles'] ?? 'unlimited') : 'unlimited';

        return \is_numeric($soft) ? (int) $soft : null;
    }

    public static function openDescriptors(): int
    {
        return \is_dir('/proc/self/fd') ? \count((array) \scandir('/proc/self/fd')) - 2 : 16;
    }

    private static function kernelMaximum(): int
    {
        $max = @\file_get_contents('/proc/sys/fs/nr_open');

        return \is_string($max) && \ctype_digit(\trim($max)) ? (int) \trim($max) : 1_048_576;
    }
}
