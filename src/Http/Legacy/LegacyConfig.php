<?php

declare(strict_types=1);

namespace Bobbin\Http\Legacy;

use Closure;
use Psr\Log\LoggerInterface;

/**
 * How `--legacy` runs its script: by default each request in a clean PHP state
 * (IsolatedLegacyLoop, at most $children at once per worker, each with $memoryLimit) — in a
 * child of the legacy pool, or a process forked for it ($runner); with --legacy-shared-state,
 * request after request in the worker itself (LegacyLoop), faster and unsafe for scripts that
 * keep per-user state in globals.
 */
final readonly class LegacyConfig
{
    /** PHP's own default memory_limit, what a PHP-FPM child has with a stock php.ini. */
    public const DEFAULT_MEMORY_LIMIT = '128M';

    public function __construct(
        public bool $sharedState = false,
        public int $children = 2,
        public string $memoryLimit = self::DEFAULT_MEMORY_LIMIT,
        /** --legacy-docroot: each request runs the .php file its path names (DocumentRoot) */
        public ?DocumentRoot $documentRoot = null,
        public LegacyRunner $runner = LegacyRunner::Fork,
        /** The pool's program (LegacyPool::program()), for LegacyRunner::Pool */
        public ?string $poolProgram = null,
        /** Whether the fork runner was chosen because no pool program is built (a warning at start) */
        public bool $forkForWantOfPool = false,
        /** @var list<string> the user's own `php -d name=value` settings, for the pool's PHP (forked processes inherit them) */
        public array $phpSettings = [],
    ) {
        if ($runner === LegacyRunner::Pool && $poolProgram === null) {
            throw new \InvalidArgumentException('--legacy-runner=pool needs the pool\'s program: build it with native/legacy-pool/build (a C compiler, PHP\'s headers and its embed library: Debian\'s gcc, php8.2-dev, libphp8.2-embed), or name it in BOBBIN_LEGACY_POOL');
        }
        if ($sharedState && $documentRoot !== null) {
            // Files of a multi-file application declare their functions without require_once
            // guards against a second request: they need a fresh process per request.
            throw new \InvalidArgumentException('--legacy-docroot runs each request in a fresh process: it cannot be combined with --legacy-shared-state');
        }
        if ($children < 1) {
            throw new \InvalidArgumentException('--legacy-children must be at least 1');
        }
        if (\preg_match('/^(-1|\d+[KMG]?)$/i', $memoryLimit) !== 1) {
            throw new \InvalidArgumentException('--legacy-memory-limit expects a size such as 128M, or -1 for none');
        }
    }

    /** Scripts one worker runs at once by default: about two per core over the whole server. */
    public static function defaultChildren(int $cores, int $workers): int
    {
        return \max(2, \intdiv(2 * $cores + $workers - 1, \max(1, $workers)));
    }

    /** The server's handler: queues requests for the script loop (routed by the document root, if any). */
    public function gateway(): LegacyGateway
    {
        return new LegacyGateway(documentRoot: $this->documentRoot);
    }

    /** Why this PHP cannot run this mode, or null. */
    public function unsupportedBecause(): ?string
    {
        return match (true) {
            $this->sharedState => LegacyLoop::unsupportedBecause(),
            $this->runner === LegacyRunner::Pool => \function_exists('proc_open') && \function_exists('posix_kill') ? null : 'the legacy pool needs proc_open() and the posix extension',
            default => IsolatedLegacyLoop::unsupportedBecause(),
        };
    }

    /**
     * @param Closure(): int $onEnd the worker's clean-up once no request will come; returns its exit code
     * @param (Closure(string): void)|null $onScriptExit for the shared-state loop: exit() ends the worker
     */
    public function loop(string $script, LegacyGateway $gateway, LoggerInterface $logger, Closure $onEnd, float $requestTimeout, ?Closure $onScriptExit = null): ScriptLoop
    {
        if (!$this->sharedState) {
            if ($this->forkForWantOfPool) {
                $logger->warning('--legacy forks a process per request: the legacy pool, which costs as much CPU per request as PHP-FPM, is not built (native/legacy-pool/build; docs/LEGACY.md)');
            }
            $pool = $this->runner === LegacyRunner::Pool ? new LegacyPool((string) $this->poolProgram, $this->children, $this->memoryLimit, $logger, $this->phpSettings) : null;

            return new IsolatedLegacyLoop($script, $gateway, $logger, $onEnd, $this->children, $this->memoryLimit, $requestTimeout, $this->documentRoot?->directory, $pool);
        }
        $loop = new LegacyLoop($script, $gateway, $logger, $onEnd, $onScriptExit);
        // Before the server's own report: a script's exit() still sends the response it made.
        \register_shutdown_function($loop->completeOnShutdown(...));

        return $loop;
    }
}
