<?php

declare(strict_types=1);

namespace Bobbin\Cli;

use Bobbin\Platform\RequiredExtension;
use Bobbin\Async\Async;
use Bobbin\Http\AccessLog;
use Bobbin\Http\InvalidConfigException;
use Bobbin\Http\ListenAddress;
use Bobbin\Http\Legacy\DocumentRoot;
use Bobbin\Http\Legacy\GlobalScopeHandoffException;
use Bobbin\Http\Legacy\LegacyConfig;
use Bobbin\Http\Legacy\LegacyPool;
use Bobbin\Http\Legacy\LegacyRunner;
use Bobbin\Http\Legacy\LegacyGateway;
use Bobbin\Http\Server;
use Bobbin\Http\ServerConfig;
use Bobbin\Http\ServerStartException;
use Bobbin\Log\RateLimitedLogger;
use Bobbin\Log\StderrLogger;
use Bobbin\Jobs\Jobs;
use Bobbin\Jobs\JobsConfig;
use Bobbin\Jobs\Nats\NatsJobsConfig;
use Bobbin\Leaks\LeakDetectingHandler;
use Bobbin\Leaks\LeakReporter;
use Bobbin\Process\AbruptEndReport;
use Bobbin\Process\ApplicationLoader;
use Bobbin\Process\ApplicationLoadException;
use Bobbin\Platform\ByteSize;
use Bobbin\Process\CpuCount;
use Bobbin\Process\Admin\AdminAccess;
use Bobbin\Process\JobPoolConfig;
use Bobbin\Process\Master;
use Bobbin\Process\MasterConfig;
use Bobbin\Process\MasterFailedException;
use Bobbin\Process\PidFile;
use Bobbin\Process\PidFileException;
use Bobbin\Process\ProcessShutdown;
use Bobbin\Process\RecycleLimits;
use Bobbin\Process\StopSignals;
use Psr\Http\Server\RequestHandlerInterface;
use Psr\Log\LoggerInterface;
use Psr\Log\LogLevel;

/**
 * `bin/bobbin serve APP_FILE`: one worker in the foreground until SIGTERM/SIGINT. Options come
 * from, weakest first: defaults, --config=FILE, BOBBIN_* environment variables, the command line.
 *
 * Over 400 lines: the option table (one line of help per option) is a quarter of it; the rest
 * turns options into the configs of the server, the master, the job pool and the legacy mode.
 */
final class ServeCommand
{
    /** Options of the command itself, beside the server's own (ServerConfig::OPTIONS). */
    private const OWN_OPTIONS = [
        'workers' => ['int', 'the number of cores', 'worker processes, supervised by a master process that replaces any that ends'],
        'admin' => ['string', '', 'HOST:PORT or unix:/path where the master serves /metrics (Prometheus), /status and /status.json (off when empty; never the application\'s address); an address other than loopback or a unix socket needs --admin-token-file or --admin-insecure'],
        'admin-token-file' => ['string', '', 'file whose first line is a bearer token (16+ printable characters, e.g. openssl rand -hex 32) every admin request must carry as Authorization: Bearer TOKEN'],
        'admin-insecure' => ['bool', 'false', 'let --admin listen on an address other hosts reach WITHOUT authentication: anyone who reaches it reads /metrics and /status'],
        'block-threshold' => ['string', '0.1', 'seconds one fiber or callback may hold a worker\'s loop without yielding before the worker logs a warning naming the request, once per request and after the fact: nothing is interrupted (0: off; needs the master, not in --legacy; docs/OBSERVABILITY.md)'],
        'block-stacks' => ['bool', 'false', 'also take the PHP stack of such code while it runs: the master signals the worker (SIGURG), which interrupts the code — a sleep() in it returns early (for development and staging; docs/OBSERVABILITY.md)'],
        'detect-leaks' => ['bool', 'false', 'after each request, compare the application\'s static properties, globals, ini settings, timezone, locale, output buffers, loop callbacks and database connections with before it, and log what a request left behind, once each; requests then run one at a time per worker (for development and staging; docs/OBSERVABILITY.md)'],
        'legacy' => ['bool', 'false', 'APP_FILE is a script written for PHP-FPM\'s superglobals ($_GET, $_POST, echo, header()): run it per request at the global scope, each request in a clean PHP state (a process of the legacy pool, or one forked for it: --legacy-runner), so nothing of one request is left for the next (docs/LEGACY.md)'],
        'legacy-children' => ['int', 'about 2 per core over all workers (at least 2 per worker)', 'with --legacy: scripts one worker runs at once (each in its own process); further requests wait in the worker\'s queue'],
        'legacy-memory-limit' => ['string', LegacyConfig::DEFAULT_MEMORY_LIMIT, 'with --legacy: memory_limit of each script\'s process, as php.ini\'s for a PHP-FPM child (-1: none)'],
        'legacy-docroot' => ['string', '', 'with --legacy, for applications of many .php files (WordPress, Adminer): serve DIR as nginx\'s try_files $uri $uri/ /index.php does — /a/b.php runs DIR/a/b.php, a directory its index.php, any other path DIR/index.php; only .php files inside DIR ever run, its other files are served as --static serves them (GET and HEAD; dotfiles refused); no APP_FILE then (docs/LEGACY.md)'],
        'legacy-runner' => ['string', 'pool when its program is built (native/legacy-pool/build), else fork', 'with --legacy: where each request\'s script runs in a clean PHP state — pool: a child of the legacy pool, which starts and ends each request as PHP-FPM does (PHP\'s own request start-up and shut-down), at PHP-FPM\'s cost; fork: a process forked from the worker per request, no build step, more CPU per request (docs/LEGACY.md)'],
        'legacy-shared-state' => ['bool', 'false', 'with --legacy: run request after request in the worker itself instead of a fresh process each — faster, but globals, statics, functions, classes and constants of one request stay for the next (a logged-in user\'s too): only for scripts written for it (docs/LEGACY.md)'],
        'watch' => ['bool', 'false', 'for development: reload the workers when a PHP file under APP_FILE\'s folder changes (polled twice a second; vendor/, var/ and .git/ skipped); new code that fails to load leaves the old workers serving (needs the master)'],
                'single-process' => ['bool', 'false', 'serve in this one process, without a master: nothing replaces it when application code calls exit() or hits a fatal error'],
        'memory-limit' => ['string', '256M', 'memory_limit of the serving processes, e.g. 512M (-1: none); a worker over it ends (its requests are named in the log) and is replaced'],
        'max-requests' => ['int', '0', 'a worker is replaced after about this many requests (±10 % per worker; 0: never; starts a master)'],
        'max-memory' => ['string', '0', 'a worker is replaced once its PHP heap exceeds this many bytes, e.g. 128M (0: never; starts a master)'],
        'pid-file' => ['string', '', 'write the (master) process id here while running; the master adds PID_FILE.status.json'],
        'config' => ['string', '', 'PHP file returning an array of option => value'],
        'log-level' => ['string', 'info', 'least severe log level written to stderr'],
        'opcache' => ['bool', 'true', 'run with opcache and the JIT (bin/bobbin restarts PHP with them once); --no-opcache: off (command line or environment only)'],
        'job-workers' => ['string', 'auto', 'job worker processes for CPU-heavy tasks (Bobbin\\Jobs\\Jobs, docs/JOBS.md), supervised beside the HTTP workers; auto: one per core, started at the first task (with --single-process, their supervisor too; with --job-bootstrap: at start); N: N started with the server; 0: tasks run inside the HTTP worker'],
        'job-bootstrap' => ['string', '', 'PHP file each job worker requires once before its first task: the application\'s autoloader and services'],
        'job-queue' => ['int', '64', 'tasks one HTTP worker may have queued or running in the job workers; submit() waits beyond'],
        'job-queue-wait' => ['string', '10', 'seconds submit() waits for room in a full queue, then throws JobQueueFullException'],
        'job-timeout' => ['string', '60', 'seconds a task may run; past it its job worker is killed and replaced and the caller gets JobTimeoutException (0: no limit)'],
        'job-max-tasks' => ['int', '0', 'a job worker is replaced after about this many tasks (±10 % per worker; 0: never)'],
        'job-max-memory' => ['string', '0', 'a job worker is replaced once its PHP heap exceeds this many bytes after a task, e.g. 256M (0: never)'],
        'job-socket' => ['string', '', 'unix socket the job workers accept tasks on (default: jobs.sock in a new private directory under the temp dir)'],
        'job-nice' => ['int', '0', 'added to the job workers\' niceness (0..19): the kernel prefers the HTTP workers when both want a CPU'],
        'jobs-key-file' => ['string', '', JobKeysOption::HELP],
        'jobs-transport' => ['string', 'local', 'where tasks run: local (job workers beside the HTTP workers) or nats://host:port (bin/bobbin jobs-worker processes on any host; no local job workers; docs/JOBS.md)'],
    ];

    /**
     * The --legacy-* options; refused without --legacy.
     *
     * @param array<string, mixed> $options
     * @throws UsageException
     */
    private static function legacyConfig(array $options, bool $legacy, int $workers): LegacyConfig
    {
        $sharedState = self::flag('legacy-shared-state', $options['legacy-shared-state'] ?? false);
        $given = \array_intersect(['legacy-children', 'legacy-memory-limit', 'legacy-shared-state', 'legacy-docroot', 'legacy-runner'], \array_keys($options));
        if (!$legacy && $given !== []) {
            throw new UsageException(\sprintf('--%s goes with --legacy', \reset($given)));
        }
        $children = isset($options['legacy-children'])
            ? self::wholeNumber('legacy-children', $options['legacy-children'], 1)
            : LegacyConfig::defaultChildren(CpuCount::detect(), $workers);
        if ($sharedState && isset($options['legacy-children'])) {
            throw new UsageException('--legacy-children counts script processes; --legacy-shared-state runs scripts in the worker itself, one at a time');
        }
        $runnerOption = (string) ($options['legacy-runner'] ?? '');
        if ($sharedState && $runnerOption !== '') {
            throw new UsageException('--legacy-runner chooses where a clean process runs each script; --legacy-shared-state runs scripts in the worker itself');
        }
        $program = LegacyPool::program();
        $runner = $runnerOption === '' ? ($program !== null ? LegacyRunner::Pool : LegacyRunner::Fork) : LegacyRunner::tryFrom($runnerOption);
        if ($runner === null) {
            throw new UsageException('--legacy-runner is pool or fork');
        }
        try {
            $docroot = (string) ($options['legacy-docroot'] ?? '');

            return new LegacyConfig(
                $sharedState,
                $children,
                (string) ($options['legacy-memory-limit'] ?? LegacyConfig::DEFAULT_MEMORY_LIMIT),
                $docroot === '' ? null : new DocumentRoot($docroot),
                $runner,
                $runner === LegacyRunner::Pool ? $program : null,
                $legacy && !$sharedState && $runnerOption === '' && $runner === LegacyRunner::Fork,
                $runner === LegacyRunner::Pool ? self::userPhpSettings() : [],
            );
        } catch (\InvalidArgumentException $error) {
            throw new UsageException($error->getMessage());
        }
    }

    /**
     * The `php -d` settings the user started bin/bobbin with (not the opcache relaunch's own).
     *
     * @return list<string>
     */
    private static function userPhpSettings(): array
    {
        /** @var array<string, string> $environment */
        $environment = \getenv();

        return OpcacheRelaunch::userSettingsOf(OpcacheRelaunch::ownCommandLine(), OpcacheRelaunch::ownArgumentCount(), $environment);
    }

    /**
     * @param resource $stdout
     * @param resource $stderr
     */
    public function __construct(private $stdout, private $stderr)
    {
    }

    /**
     * @param list<string> $arguments
     * @throws UsageException
     */
    public function run(array $arguments): int
    {
        [$appFile, $cliOptions, $wantsHelp] = self::parseArguments($arguments);
        if ($wantsHelp) {
            \fwrite($this->stdout, self::help());

            return ExitCode::Ok->value;
        }
        // The master forks and signals its workers; the server sets TCP_NODELAY on its sockets.
        RequiredExtension::checkAll(['pcntl', 'posix', 'sockets'], 'bin/bobbin serve');
        $options = self::mergeOptions($cliOptions, \getenv());
        $singleProcess = self::flag('single-process', $options['single-process'] ?? false);
        $workers = isset($options['workers']) ? self::wholeNumber('workers', $options['workers'], 1) : ($singleProcess ? 1 : CpuCount::detect());
        $maxRequests = self::wholeNumber('max-requests', $options['max-requests'] ?? 0, 0);
        try {
            $maxMemory = \is_int($options['max-memory'] ?? null) ? $options['max-memory'] : ByteSize::parse((string) ($options['max-memory'] ?? '0'));
        } catch (\InvalidArgumentException $error) {
            throw new UsageException('--max-memory: ' . $error->getMessage());
        }
        $pidFile = (string) ($options['pid-file'] ?? '');
        $logLevel = (string) ($options['log-level'] ?? LogLevel::INFO);
        $memoryLimit = (string) ($options['memory-limit'] ?? '256M');
        $legacy = self::flag('legacy', $options['legacy'] ?? false);
        $legacyConfig = self::legacyConfig($options, $legacy, $workers);
        $detectLeaks = self::flag('detect-leaks', $options['detect-leaks'] ?? false);
        $watch = self::flag('watch', $options['watch'] ?? false);
        if ($detectLeaks && $legacy) {
            throw new UsageException('--detect-leaks watches an application object; a --legacy script starts afresh each request');
        }
        $admin = (string) ($options['admin'] ?? '');
        $adminTokenFile = (string) ($options['admin-token-file'] ?? '');
        $adminInsecure = self::flag('admin-insecure', $options['admin-insecure'] ?? false);
        $adminAccess = null;
        $blockThreshold = self::seconds('block-threshold', $options['block-threshold'] ?? 0.1);
        $blockStacks = self::flag('block-stacks', $options['block-stacks'] ?? false);
        if (\preg_match('/^(-1|\d+[KMG]?)$/i', $memoryLimit) !== 1) {
            throw new UsageException('--memory-limit expects a size such as 256M, or -1 for none');
        }
        $jobPool = self::remoteJobs($options) ? null : self::jobPool($options);
        foreach (\array_keys(self::OWN_OPTIONS) as $own) {
            unset($options[$own]);
        }
        if ($legacyConfig->documentRoot !== null) {
            // Its static files (CSS, images) are served as nginx's try_files $uri serves them; its .php files never are.
            $options['static'] = [...self::listOption($options['static'] ?? []), $legacyConfig->documentRoot->directory];
        }
        try {
            $config = ServerConfig::fromArray($options);
            $logger = new RateLimitedLogger(new StderrLogger($logLevel, $this->stderr));
        } catch (InvalidConfigException | \InvalidArgumentException $error) {
            throw new UsageException($error->getMessage());
        }
        if ($legacyConfig->documentRoot !== null) {
            if ($appFile !== null) {
                throw new UsageException('--legacy-docroot runs the file each request\'s path names: give no APP_FILE');
            }
            // What the server reports as its application; each request's script keys are its own.
            $appFile = $legacyConfig->documentRoot->directory . DocumentRoot::FRONT_CONTROLLER;
        }
        if ($appFile === null) {
            throw new UsageException('serve needs an APP_FILE (try bin/bobbin serve --help)');
        }
        try {
            // Here, not in each worker at boot: one clear line instead of a worker that cannot start.
            $probe = $config->accessLogFile === '' ? null : AccessLog::toFile($config->accessLogFile, false);
            unset($probe);
        } catch (\RuntimeException $error) {
            throw new StartupException('--access-log-file: ' . $error->getMessage());
        }
        \ini_set('memory_limit', $memoryLimit);
        if ($legacy && ($unsupported = $legacyConfig->unsupportedBecause()) !== null) {
            throw new UsageException($unsupported);
        }
        if ($singleProcess && ($workers > 1 || $maxRequests > 0 || $maxMemory > 0 || $admin !== '' || $watch)) {
            throw new UsageException('--single-process serves in one process: it cannot be combined with --workers above 1, --max-requests, --max-memory, --admin or --watch (the master serves it)');
        }
        if ($admin !== '') {
            try {
                ListenAddress::parse($admin);
            } catch (InvalidConfigException $error) {
                throw new UsageException('--admin: ' . $error->getMessage());
            }
            if ($admin === $config->listen && !\str_ends_with($admin, ':0')) {
                throw new UsageException('--admin must not be the application\'s address (--listen)');
            }
            try {
                $adminAccess = AdminAccess::for($admin, $adminTokenFile === '' ? null : AdminAccess::readTokenFile($adminTokenFile), $adminInsecure);
            } catch (\InvalidArgumentException $error) {
                throw new UsageException($error->getMessage());
            }
        } elseif ($adminTokenFile !== '' || $adminInsecure) {
            throw new UsageException('--admin-token-file and --admin-insecure go with --admin');
        }
        if (!$singleProcess) {
            return $this->runMaster(new MasterConfig($appFile, $config, $workers, $pidFile, new RecycleLimits($maxRequests, $maxMemory), legacy: $legacy, legacyConfig: $legacyConfig, admin: $admin, adminAccess: $adminAccess, jobs: $jobPool, blockThreshold: $blockThreshold, blockStacks: $blockStacks, detectLeaks: $detectLeaks, watch: $watch), $logger);
        }
        // Before the application loads (it may ask for Jobs::shared() at once) and before the
        // server listens (no job worker may hold a copy of its sockets); or, left at auto, at the
        // first task as a fresh process (LateJobMaster). Not so for --legacy, whose scripts may
        // run in processes forked per request, nor with the operator's keys, which it cannot pass on.
        $late = !$legacy && ($options['jobs-key-file'] ?? '') === '' && (string) \getenv('BOBBIN_JOBS_KEY') === ''
            ? ['logLevel' => $logLevel, 'memoryLimit' => $memoryLimit] : null;
        $jobMaster = SingleProcessJobs::start($jobPool, $late, $logger);
        $legacyLoop = null;
        if ($legacy) {
            if ($legacyConfig->documentRoot === null && (!\is_file($appFile) || !\is_readable($appFile))) {
                throw new UsageException(\sprintf('APP_FILE %s does not exist or is not readable', $appFile));
            }
            $handler = $legacyConfig->gateway();
            // The loop outlives run() (bin/bobbin drives it at the global scope): it holds the job
            // workers' supervisor, whose channel closing would tell it that this process is gone.
            $legacyLoop = $legacyConfig->loop((string) (\realpath($appFile) ?: $appFile), $handler, $logger, static function () use ($jobMaster): int {
                $jobMaster?->stop(5.0);

                return ExitCode::Ok->value;
            }, $config->requestTimeout);
        } else {
            $handler = self::loadApplication($appFile);
            if ($detectLeaks) {
                $handler = new LeakDetectingHandler($handler, new LeakReporter($logger));
            }
        }

        $server = new Server($config, $handler, $logger, null, $appFile);
        AbruptEndReport::register($server);
        $claimed = null;
        if ($pidFile !== '') {
            // Before listening: a second server with this pid file must not share the port.
            try {
                $claimed = PidFile::claim($pidFile);
            } catch (PidFileException $error) {
                throw new StartupException($error->getMessage());
            }
            // Even when application code ends the process, the pid file must not outlive it.
            ProcessShutdown::register(static fn () => $claimed->release());
        }
        try {
            $server->start();
        } catch (ServerStartException $error) {
            \fwrite($this->stderr, 'bobbin: ' . $error->getMessage() . "\n");

            return ExitCode::Runtime->value;
        }
        $signals = new StopSignals(
            static function (int $signal) use ($server, $logger, $config): void {
                $logger->info('Received signal {signal}; stopping gracefully (up to {s} s)', ['signal' => $signal, 's' => $config->drainTimeout]);
                $server->stop($config->drainTimeout);
            },
            static function (int $signal) use ($server, $logger): void {
                $logger->warning('Received signal {signal} again; closing every connection now', ['signal' => $signal]);
                $server->abort();
            },
            $server->isStopping(...),
        );
        $logger->info('Listening on {address} (pid {pid})', ['address' => $server->address(), 'pid' => \getmypid()]);
        if ($legacyLoop !== null && $handler instanceof LegacyGateway) {
            Async::run(static function () use ($server, $handler): void {
                $server->stopped()->await();
                $handler->close();
            })->ignore();
            throw new GlobalScopeHandoffException($legacyLoop); // bin/bobbin runs the script loop; the pid file goes at shutdown
        }

        $server->stopped()->await();
        $jobMaster?->stop(5.0);

        $signals->remove();
        $claimed?->release();
        $logger->info('Stopped');

        return ExitCode::Ok->value;
    }

    /** Forks the workers and supervises them until a graceful stop (docs/PROCESS.md). */
    private function runMaster(MasterConfig $config, LoggerInterface $logger): int
    {
        if ($config->legacyConfig->documentRoot === null && (!\is_file($config->appFile) || !\is_readable($config->appFile))) {
            throw new UsageException(\sprintf('APP_FILE %s does not exist or is not readable', $config->appFile));
        }
        if (!\function_exists('pcntl_fork') || !\function_exists('posix_kill')) {
            throw new UsageException('a master process needs the pcntl and posix extensions; use --single-process');
        }
        try {
            (new Master($config, $logger))->run();
        } catch (MasterFailedException $failure) {
            if ($failure->exitCode === ExitCode::Usage->value) {
                throw new UsageException($failure->getMessage());
            }
            throw new StartupException($failure->getMessage(), 0, $failure);
        }

        return ExitCode::Ok->value;
    }

    /**
     * The job workers the options ask for; null for --job-workers=0 (tasks run in-process). Left at
     * auto, the pool is bound at start and its workers forked when the first task arrives.
     *
     * @param array<string, mixed> $options
     * @throws UsageException
     */
    private static function jobPool(array $options): ?JobPoolConfig
    {
        $given = $options['job-workers'] ?? 'auto';
        $auto = \is_string($given) && \strtolower(\trim($given)) === 'auto';
        $workers = $auto ? CpuCount::detect() : self::wholeNumber('job-workers', $given, 0);
        if ($workers === 0) {
            return null;
        }
        try {
            $maxMemory = $options['job-max-memory'] ?? '0';
            $maxMemory = \is_int($maxMemory) ? $maxMemory : ByteSize::parse((string) $maxMemory);
        } catch (\InvalidArgumentException $error) {
            throw new UsageException('--job-max-memory: ' . $error->getMessage());
        }
        $client = new JobsConfig(
            self::wholeNumber('job-queue', $options['job-queue'] ?? 64, 1),
            self::seconds('job-queue-wait', $options['job-queue-wait'] ?? 10),
            self::seconds('job-timeout', $options['job-timeout'] ?? 60),
        );
        $keys = JobKeysOption::read((string) ($options['jobs-key-file'] ?? ''));
        try {
            return JobPoolConfig::create(
                $workers,
                (string) ($options['job-bootstrap'] ?? ''),
                (string) ($options['job-socket'] ?? ''),
                $client,
                new RecycleLimits(self::wholeNumber('job-max-tasks', $options['job-max-tasks'] ?? 0, 0), $maxMemory),
                nice: self::wholeNumber('job-nice', $options['job-nice'] ?? 0, 0),
                keys: $keys,
                // A bootstrap says the application has tasks, and its failure should stop the start, not the first task.
                startAtFirstTask: $auto && (string) ($options['job-bootstrap'] ?? '') === '',
            );
        } catch (\InvalidArgumentException $error) {
            throw new UsageException($error->getMessage());
        }
    }

    /**
     * --jobs-transport=nats://…: every serving process sends its tasks over NATS. Installed before
     * the master forks; each process connects at its first task, so none shares a connection.
     *
     * @param array<string, mixed> $options
     * @throws UsageException
     */
    private static function remoteJobs(array $options): bool
    {
        $transport = (string) ($options['jobs-transport'] ?? 'local');
        if ($transport === 'local') {
            return false;
        }
        if (\preg_match('#^(nats|tls)://#i', $transport) !== 1) {
            throw new UsageException('--jobs-transport expects local or nats://host:port');
        }
        try {
            $nats = NatsJobsConfig::fromUrl($transport);
        } catch (\InvalidArgumentException | \ValueError $error) {
            throw new UsageException('--jobs-transport: ' . $error->getMessage());
        }
        $keys = JobKeysOption::require((string) ($options['jobs-key-file'] ?? ''), '--jobs-transport');
        Jobs::install(Jobs::nats($nats, $keys, new JobsConfig(
            self::wholeNumber('job-queue', $options['job-queue'] ?? 64, 1),
            self::seconds('job-queue-wait', $options['job-queue-wait'] ?? 10),
            self::seconds('job-timeout', $options['job-timeout'] ?? 60),
        )));

        return true;
    }

    /** @return list<mixed> */
    private static function listOption(mixed $value): array
    {
        return \is_array($value) ? \array_values($value) : [$value];
    }

    /** @throws UsageException */
    private static function seconds(string $name, mixed $value): float
    {
        if ((!\is_int($value) && !\is_float($value) && (!\is_string($value) || !\is_numeric(\trim($value)))) || (float) $value < 0 || !\is_finite((float) $value)) {
            throw new UsageException(\sprintf('--%s expects a number of seconds, 0 or more', $name));
        }

        return (float) $value;
    }

    /** @throws UsageException */
    private static function flag(string $name, mixed $value): bool
    {
        $flag = \is_bool($value) ? $value : \filter_var($value, \FILTER_VALIDATE_BOOL, \FILTER_NULL_ON_FAILURE);
        if ($flag === null) {
            throw new UsageException(\sprintf('--%s expects a boolean (1/0, true/false, on/off)', $name));
        }

        return $flag;
    }

    /** @throws UsageException */
    private static function wholeNumber(string $name, mixed $value, int $minimum): int
    {
        if ((!\is_int($value) && (!\is_string($value) || !\ctype_digit(\trim($value)))) || (int) \trim((string) $value) < $minimum) {
            throw new UsageException(\sprintf('--%s expects a whole number of at least %d', $name, $minimum));
        }

        return (int) \trim((string) $value);
    }

    public static function help(): string
    {
        $lines = [
            'Usage: bin/bobbin serve APP_FILE [options]',
            '',
            'APP_FILE returns a PSR-15 RequestHandlerInterface or a Closure(ServerRequestInterface): ResponseInterface.',
            'Every option can also be set as an environment variable (--max-body-bytes → BOBBIN_MAX_BODY_BYTES)',
            'or as a key of the array returned by --config=FILE; the command line wins, then the environment.',
            'SIGTERM or SIGINT stops gracefully: no new connections, requests in flight finish (up to --drain-timeout);',
            'a second SIGTERM or SIGINT closes what is left at once. With a master (--workers above 1), SIGHUP reloads',
            'the application without dropping requests: new workers start, then the old ones drain (bin/bobbin reload).',
            '',
            'Options:',
        ];
        $rows = [];
        foreach (self::OWN_OPTIONS as $name => [, $default, $help]) {
            $rows[$name] = [$default, $help];
        }
        foreach (ServerConfig::OPTIONS as $name => [, , $default, $help]) {
            $rows[$name] = [\is_bool($default) ? \var_export($default, true) : (string) $default, $help];
        }
        \array_push($lines, ...CommandLine::helpLines($rows, true));

        return \implode("\n", $lines) . "\n";
    }



    /**
     * @param list<string> $arguments
     * @return array{?string, array<string, string|list<string>>, bool}
     * @throws UsageException
     */
    private static function parseArguments(array $arguments): array
    {
        $types = [];
        foreach (self::OWN_OPTIONS as $name => [$type]) {
            $types[$name] = $type;
        }
        foreach (ServerConfig::OPTIONS as $name => [, $type]) {
            $types[$name] = $type;
        }
        $parsed = (new CommandLine('serve', $types, 'APP_FILE', ['--no-opcache' => ['opcache', '0']]))->parse($arguments);
        $options = $parsed->options;
        foreach ($types as $name => $type) {
            if ($type === 'list' && isset($parsed->every[$name])) {
                $options[$name] = $parsed->every[$name]; // --static=A --static=B: both
            }
        }

        return [$parsed->positional, $options, $parsed->help];
    }

    /**
     * @param array<string, string|list<string>> $cliOptions
     * @param array<string, string> $environment
     * @return array<string, mixed>
     * @throws UsageException
     */
    private static function mergeOptions(array $cliOptions, array $environment): array
    {
        $fromEnvironment = [];
        foreach (\array_merge(\array_keys(self::OWN_OPTIONS), \array_keys(ServerConfig::OPTIONS)) as $name) {
            $value = $environment[CommandLine::envName($name)] ?? null;
            if ($value !== null && $value !== '') {
                $fromEnvironment[$name] = $value;
            }
        }
        $configFile = $cliOptions['config'] ?? $fromEnvironment['config'] ?? null;
        if (\is_array($configFile)) {
            throw new UsageException('--config is given once');
        }
        $fromFile = [];
        if ($configFile !== null && $configFile !== '') {
            if (!\is_file($configFile) || !\is_readable($configFile)) {
                throw new UsageException(\sprintf('--config: cannot read %s', $configFile));
            }
            $loaded = (static fn (string $file): mixed => require $file)($configFile);
            if (!\is_array($loaded)) {
                throw new UsageException(\sprintf('--config: %s must return an array of option => value', $configFile));
            }
            foreach ($loaded as $name => $value) {
                $name = (string) $name;
                if ($name === 'config' || (!isset(self::OWN_OPTIONS[$name]) && !isset(ServerConfig::OPTIONS[$name]))) {
                    throw new UsageException(\sprintf('--config: unknown option "%s" in %s', $name, $configFile));
                }
                $fromFile[$name] = $value;
            }
        }

        return \array_merge($fromFile, $fromEnvironment, $cliOptions);
    }

    /** @throws UsageException|StartupException */
    private static function loadApplication(string $appFile): RequestHandlerInterface
    {
        try {
            return ApplicationLoader::load($appFile);
        } catch (ApplicationLoadException $error) {
            if ($error->isUsageError) {
                throw new UsageException($error->getMessage());
            }
            throw new StartupException($error->getMessage(), 0, $error);
        }
    }
}
