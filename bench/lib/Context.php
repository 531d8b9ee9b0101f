<?php

declare(strict_types=1);

namespace Bobbin\Bench;

use Bobbin\Bench\Load\Meter;
use Bobbin\Bench\Load\Metered;
use Bobbin\Bench\Load\WrkResult;
use Bobbin\Bench\Server\Server;

/**
 * What every experiment shares: options, the database, the meter, the results of this run,
 * and the measuring loop (noise check, warm-up, repetitions).
 */
final class Context
{
    /** The server under test runs here… */
    public const SERVER_CPU = '0';
    /** …and PostgreSQL, the load generator and this harness here. */
    public const LOAD_CPU = '1';
    public const CRUD_CLIENTS = 50;
    public const HELLO_CONNECTIONS = 50;
    public const HELLO_THREADS = 2;
    /**
     * Load generators. LOADGEN: bench/loadgen's bobbin-crud-load, one thread and one epoll loop
     * for every connection, so requests reach the server in bursts. WRK_SPREAD: `wrk` with one
     * thread per connection, so requests arrive spread out, one wake-up each, as real clients'
     * do. WRK_T2: `wrk -t2`, the hello-world generator of earlier runs.
     */
    public const LOADGEN = 'loadgen';
    public const WRK_SPREAD = 'wrk-t50';
    public const WRK_T2 = 'wrk-t2';

    /** @var array<string, int> facts one experiment leaves for a later one (e.g. best pool size) */
    public array $facts = [];
    private ?string $supportCpus = null;
    private ?string $crudLoadBinary = null;

    public function __construct(
        public readonly Options $options,
        public readonly Results $results,
        public readonly Progress $progress,
        public readonly NoiseGuard $noise,
        public readonly Database $database,
        public readonly Meter $meter,
    ) {
    }

    public function root(): string
    {
        return $this->options->root;
    }

    /**
     * Pins the database, the load generator (inherited from this process) and this process.
     * null: every CPU for everybody (the multi-core experiment).
     */
    public function pinSupport(?string $cpus): void
    {
        $this->supportCpus = $cpus ?? '0-' . (Machine::cpuCount() - 1);
        $this->database->pin($this->supportCpus);
        Shell::run(['taskset', '-p', '-c', $this->supportCpus, (string) \getmypid()]);
    }

    /**
     * Before each measurement: the database may have been restarted (by tests sharing the
     * cluster) since it was pinned, so pin again; then wait for a quiet machine.
     *
     * @return array{bool, int} noisy, and the postmaster's pid to compare with afterwards
     */
    private function prepare(string $variant): array
    {
        if ($this->supportCpus !== null) {
            $this->database->pin($this->supportCpus);
        }
        $this->progress->status("$variant: checking the machine is quiet");

        return [$this->noise->settle()['noisy'], $this->database->postmasterPid()];
    }

    /**
     * One measured run. The cluster is shared with test suites that restart it; a run that
     * failed, or during which the cluster was restarted, is repeated (at most twice) once the
     * cluster is back; if every attempt was disturbed the last one is kept, marked noisy.
     *
     * @param \Closure(float $seconds): array<string, array{float, string}> $once
     * @return array{array<string, array{float, string}>, bool} metrics, and whether it was disturbed
     */
    private function attempt(\Closure $once, float $seconds, string $experiment, string $variant, int &$postmaster): array
    {
        for ($try = 1; ; $try++) {
            try {
                $metrics = $once($seconds);
                $disturbed = $this->restarted($postmaster);
            } catch (\RuntimeException $e) {
                if ($try >= 3 || \str_starts_with($e->getMessage(), 'interrupted by signal')
                    || !$this->database->awaitUp(60.0) || $this->database->postmasterPid() === $postmaster) {
                    throw $e;
                }
                $metrics = null;
                $disturbed = true;
            }
            if (!$disturbed || $try >= 3) {
                $postmaster = $this->database->postmasterPid();

                return [$metrics, $disturbed];
            }
            $this->progress->note("$variant: PostgreSQL was restarted under the run; repeating it");
            $this->results->note($experiment, "$variant: PostgreSQL was restarted by another process during a run; the run was repeated.");
            $this->database->awaitUp(60.0);
            $postmaster = $this->database->postmasterPid();
            if ($this->supportCpus !== null) {
                $this->database->pin($this->supportCpus);
            }
            \usleep(500_000);
        }
    }

    /** Did the database restart since $postmaster was read? */
    private function restarted(int $postmaster): bool
    {
        return $this->database->postmasterPid() !== $postmaster;
    }

    /**
     * Noise check, one warm-up run, then the repetitions; every metric $once returns becomes a
     * sample of $variant.
     *
     * @param \Closure(float $seconds): array<string, array{float, string}> $once metric => [value, unit]
     */
    public function repeat(string $experiment, string $variant, \Closure $once): void
    {
        $this->repeatInTurns([[$experiment, $variant, $once]]);
    }

    /**
     * repeat() for several variants measured in turns: a warm-up of each, then run 1 of every
     * variant, then run 2 of every variant, and so on. A ratio between them then compares runs
     * seconds apart rather than experiments minutes apart, on a machine whose neighbours come and
     * go (back-to-back pgbench runs here differed by up to 25 %).
     *
     * @param list<array{string, string, \Closure(float $seconds): array<string, array{float, string}>}> $variants
     *        experiment, variant, one run
     */
    public function repeatInTurns(array $variants): void
    {
        $names = \implode(' + ', \array_map(static fn (array $v): string => $v[1], $variants));
        [$noisy, $postmaster] = $this->prepare($names);
        foreach ($variants as [, $variant, $once]) {
            $this->progress->status("$variant: warm-up");
            $once((float) $this->options->warmupSeconds);
        }
        for ($rep = 1; $rep <= $this->options->repetitions; $rep++) {
            foreach ($variants as [$experiment, $variant, $once]) {
                $this->progress->status("$variant: run $rep/{$this->options->repetitions}");
                [$metrics, $restarted] = $this->attempt($once, (float) $this->options->durationSeconds, $experiment, $variant, $postmaster);
                foreach ($metrics as $metric => [$value, $unit]) {
                    $this->results->add(new Sample($experiment, $variant, $metric, $unit, $rep, $value, $noisy || $restarted));
                }
            }
        }
    }

    /**
     * One short run per configuration, no repetitions; returns the metric $rankBy per label.
     *
     * @param \Closure(float $seconds): array<string, array{float, string}> $once
     */
    public function sweepOnce(string $experiment, string $label, \Closure $once, string $rankBy): float
    {
        [$noisy, $postmaster] = $this->prepare("sweep $label");
        $this->progress->status("sweep $label: warm-up");
        $once((float) \min(2, $this->options->warmupSeconds));
        $this->progress->status("sweep $label: run");
        [$metrics, $restarted] = $this->attempt($once, (float) $this->options->sweepSeconds, $experiment, $label, $postmaster);
        $noisy = $restarted || $noisy;
        foreach ($metrics as $metric => [$value, $unit]) {
            $this->results->add(new Sample($experiment, $label, $metric, $unit, 1, $value, $noisy, Sample::STAGE_SWEEP));
        }

        return $metrics[$rankBy][0] ?? 0.0;
    }

    /**
     * The CRUD cycle with bench/loadgen's bobbin-crud-load: one thread, one epoll loop, the same
     * cycle and RESULT line as bench/wrk/crud.lua, on a freshly reset aircraft table. `wrk -t50 -c50` with that script spent
     * ~45 µs of the load core per CRUD, which PostgreSQL shares, so it capped the benchmark.
     *
     * @return array<string, array{float, string}>
     */
    public function crudRun(Server $server, float $seconds, string $experiment, ?string $loadCpus, string $generator = self::LOADGEN): array
    {
        $this->database->resetCrudTable();
        $nonce = \uniqid('', false);
        $command = $this->pinned($loadCpus, $generator === self::WRK_SPREAD
            ? ['wrk', '-t' . self::CRUD_CLIENTS, '-c' . self::CRUD_CLIENTS, '-d' . (int) \ceil($seconds) . 's', '--timeout', '10s',
                '-s', $this->root() . '/bench/wrk/crud.lua', $server->baseUrl(), '--', $nonce]
            : [$this->crudLoadGenerator(), '--url=' . $server->baseUrl(), '--connections=' . self::CRUD_CLIENTS,
                '--duration=' . (int) \ceil($seconds), '--timeout=10', '--nonce=' . $nonce]);
        $shown = \array_values(\array_filter($command, static fn (string $arg): bool => !\str_contains($arg, $nonce)));
        $this->results->command($experiment, \str_replace([$this->root() . '/', $server->baseUrl()], ['', 'URL'], Shell::quote($shown)));
        $metered = $this->meter->run($server, $command, $seconds + 30.0);
        if ($metered->load->exitCode !== 0 || !\str_contains($metered->load->stdout, 'RESULT ')) {
            throw new \RuntimeException(\sprintf("%s failed (exit %d):\n%s%s", $generator, $metered->load->exitCode, $metered->load->stdout, $metered->load->stderr));
        }
        $load = WrkResult::parse($metered->load->stdout);
        $cycles = \max(1.0, $load->get('cycles'));
        $wall = \max(0.001, $load->get('seconds'));

        return [
            'crud_per_s' => [$load->get('cycles') / $wall, 'CRUD/s'],
            'cpu_us_per_crud' => [$metered->serverCpuSeconds * 1e6 / $cycles, 'µs'],
            'server_core_busy' => [100 * $metered->serverCpuSeconds / $wall, '%'],
            'load_cpu_us_per_crud' => [$metered->loadCpuSeconds * 1e6 / $cycles, 'µs'],
            'cpu1_busy' => [100 * ($metered->cpuBusy[(int) self::LOAD_CPU] ?? 0.0), '%'],
            'p50_ms' => [$load->get('p50_ms'), 'ms'],
            'p99_ms' => [$load->get('p99_ms'), 'ms'],
            ...$metered->residentMetric('memory_mb'),
            'peak_pss_mb' => [$metered->peakPssKb / 1024, 'MiB'],
            'failed_cycles' => [$load->get('failed_cycles'), 'cycles'],
            'socket_errors' => [$load->get('socket_errors'), 'errors'],
        ];
    }

    /**
     * Path of bench/loadgen/build/bobbin-crud-load. `make` runs once per harness run: it builds
     * the binary if it is missing and rebuilds it after an edit of crud.c, and costs nothing
     * otherwise (as scripts/install-deps does for native/).
     */
    private function crudLoadGenerator(): string
    {
        if ($this->crudLoadBinary !== null) {
            return $this->crudLoadBinary;
        }
        $directory = $this->root() . '/bench/loadgen';
        // The compiler make will call: $CC if set, else make's default `cc` (gcc on Debian).
        $compiler = \strtok((string) (\getenv('CC') ?: 'cc'), ' ');
        foreach (['make', (string) $compiler] as $tool) {
            if (!self::onPath($tool)) {
                throw new \RuntimeException("building bench/loadgen needs `$tool` (gcc and make; scripts/install-deps installs them)");
            }
        }
        $result = Shell::run(['make', '-s', '-C', $directory], null, 120.0);
        $binary = $directory . '/build/bobbin-crud-load';
        if ($result->exitCode !== 0 || !\is_executable($binary)) {
            throw new \RuntimeException("building bench/loadgen failed (make -s -C bench/loadgen):\n" . \trim($result->stderr . $result->stdout));
        }

        return $this->crudLoadBinary = $binary;
    }

    private static function onPath(string $program): bool
    {
        if (\str_contains($program, '/')) {
            return \is_executable($program);
        }
        foreach (\explode(':', (string) \getenv('PATH')) as $directory) {
            if ($directory !== '' && \is_executable($directory . '/' . $program)) {
                return true;
            }
        }

        return false;
    }

    /**
     * Keep-alive GETs of $path from $connections connections (HELLO_CONNECTIONS unless told): with wrk and bench/wrk/plain.lua
     * (WRK_T2, WRK_SPREAD), or with bobbin-crud-load --path (LOADGEN).
     *
     * @return array<string, array{float, string}>
     */
    public function plainRun(Server $server, string $path, float $seconds, string $experiment, ?string $loadCpus, string $generator = self::WRK_T2, int $connections = self::HELLO_CONNECTIONS): array
    {
        $command = $this->pinned($loadCpus, $generator === self::LOADGEN
            ? [$this->crudLoadGenerator(), '--url=' . $server->baseUrl(), '--connections=' . $connections,
                '--duration=' . (int) \ceil($seconds), '--timeout=10', '--path=' . $path]
            : ['wrk', '-t' . ($generator === self::WRK_SPREAD ? $connections : self::HELLO_THREADS), '-c' . $connections,
                '-d' . (int) \ceil($seconds) . 's', '--timeout', '10s', '-s', $this->root() . '/bench/wrk/plain.lua',
                $server->baseUrl() . $path]);
        $this->results->command($experiment, \str_replace([$this->root() . '/', $server->baseUrl()], ['', 'URL'], Shell::quote($command)));
        $metered = $this->meter->run($server, $command, $seconds + 30.0);
        $wrk = WrkResult::parse($metered->load->stdout);
        $requests = \max(1.0, $wrk->get('requests'));
        $wall = \max(0.001, $wrk->get('seconds'));

        return [
            'req_per_s' => [$wrk->get('requests') / $wall, 'req/s'],
            'cpu_us_per_req' => [$metered->serverCpuSeconds * 1e6 / $requests, 'µs'],
            'server_core_busy' => [100 * $metered->serverCpuSeconds / $wall, '%'],
            'p50_ms' => [$wrk->get('p50_ms'), 'ms'],
            'p99_ms' => [$wrk->get('p99_ms'), 'ms'],
            ...$metered->residentMetric('memory_mb'),
            'peak_pss_mb' => [$metered->peakPssKb / 1024, 'MiB'],
            'errors' => [$wrk->get('socket_errors') + $wrk->get('non2xx'), 'errors'],
        ];
    }

    /**
     * @param list<string> $command
     * @return list<string>
     */
    public function pinned(?string $cpus, array $command): array
    {
        return $cpus === null ? $command : ['taskset', '-c', $cpus, ...$command];
    }
}
