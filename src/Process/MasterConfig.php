<?php

declare(strict_types=1);

namespace Bobbin\Process;

use Bobbin\Http\Legacy\LegacyConfig;
use Bobbin\Http\ServerConfig;

/** Everything the master and its workers need, fixed at start. */
final readonly class MasterConfig
{
    public function __construct(
        public string $appFile,
        public ServerConfig $server,
        public int $workers,
        public string $pidFile = '',
        public RecycleLimits $recycle = new RecycleLimits(),
        /** Seconds a draining worker keeps an idle keep-alive connection open for a request already on its way. */
        public float $idleGrace = 1.0,
        /** Seconds a new worker may take to load the application and report ready. */
        public float $bootTimeout = 60.0,
        /** Seconds between two stats reports of a worker (and two --max-memory checks). */
        public float $statsInterval = 1.0,
        /** Seconds added to --drain-timeout before the master kills workers that still run at a stop. */
        public float $stopMargin = 5.0,
        /** APP_FILE is a superglobals script run per request (--legacy), not an application object. */
        public bool $legacy = false,
        /** How --legacy runs the script: a process per request (the default) or --legacy-shared-state. */
        public LegacyConfig $legacyConfig = new LegacyConfig(),
        /** Where the master serves /metrics and /status (--admin=HOST:PORT or unix:/path; '' for nowhere). */
        public string $admin = '',
        /** Who may read the admin listener; null: the default for $admin (local only, else refused). */
        public ?Admin\AdminAccess $adminAccess = null,
        /** Job workers beside the HTTP workers (--job-workers); null: tasks run in the HTTP workers themselves. */
        public ?JobPoolConfig $jobs = null,
        /** Seconds one fiber or callback may hold a worker's loop before the worker logs it with its request (--block-threshold; 0: off). */
        public float $blockThreshold = 0.1,
        /** Interrupt such code with a signal to log its PHP stack too (--block-stacks; it cuts a sleep() short). */
        public bool $blockStacks = false,
        /** Compare the process's state before and after each request and log what a request left behind (--detect-leaks). */
        public bool $detectLeaks = false,
        /** Reload the workers when a PHP file under APP_FILE's folder changes (--watch, for development). */
        public bool $watch = false,
    ) {
        if ($workers < 1) {
            throw new \InvalidArgumentException('--workers must be at least 1');
        }
        if (!\is_finite($blockThreshold) || $blockThreshold < 0.0) {
            throw new \InvalidArgumentException('--block-threshold must be 0 (off) or a number of seconds above 0');
        }
    }

    /** Where the master writes what its workers report: `<pid-file>.status.json` ('' without a pid file). */
    public function statusFile(): string
    {
        return self::statusFileOf($this->pidFile);
    }

    public static function statusFileOf(string $pidFile): string
    {
        return $pidFile === '' ? '' : $pidFile . '.status.json';
    }
}
