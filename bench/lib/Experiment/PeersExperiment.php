<?php

declare(strict_types=1);

namespace Bobbin\Bench\Experiment;

use Bobbin\Bench\Context;
use Bobbin\Bench\Load\IdleConnections;
use Bobbin\Bench\Options;
use Bobbin\Bench\Results;
use Bobbin\Bench\Sample;
use Bobbin\Bench\Server\BobbinServer;
use Bobbin\Bench\Server\PeerServer;
use Bobbin\Bench\Server\Server;

/**
 * Bobbin beside the other PHP servers (issue 41): Swoole, Workerman and AMPHP as built by
 * bench/peers/build, each serving bench/peers/<peer>/hello.php and crud.php, and Bobbin from the
 * Composer install the same script makes of this checkout (vendor/bin/bobbin, --no-dev), as the
 * peers run from theirs. Every server on
 * CPU 0 with one process serving (Bobbin --single-process, Swoole SWOOLE_BASE with one worker,
 * Workerman one worker beside its idle master, AMPHP one process), the same opcache and JIT
 * settings, the load generator and PostgreSQL on CPU 1; all variants measured in turns, and every
 * ratio is taken within a round. Opt-in (`bench/run peers`): it needs the peers built. Its table
 * goes into docs/HTTP.md and from there into docs/BENCHMARKS.md, so that a run of this
 * experiment alone leaves the rest of the report as it is.
 */
final class PeersExperiment implements Experiment
{
    public const NAME = 'peers';
    public const PEERS = ['swoole', 'workerman', 'amphp'];
    public const CONNECTIONS = [50, 1000];
    public const DOC = 'docs/HTTP.md';
    public const DOC_HEADING = '## Beside Swoole, Workerman and AMPHP, measured';
    public const IDLE_CONNECTIONS = 10_000;
    public const SLEEP_CLIENTS = 10;
    /** Connections of the hello run each server gets alone, for its peak PSS (helloAlone()). */
    public const ALONE_CONNECTIONS = 1000;
    private const IDLE_SETTLE_SECONDS = 2.0;
    private const BOBBIN = 'bobbin';

    /** @var list<string> servers measured, Bobbin first */
    private array $servers = [];

    public function name(): string
    {
        return self::NAME;
    }

    public function title(): string
    {
        return 'Bobbin (as installed by Composer) beside Swoole, Workerman and AMPHP (bench/peers/build first): CPU per plaintext request at 50 and 1,000 connections, CPU per CRUD, CRUD/s, peak PSS, 10 × /sleep, 10,000 idle connections';
    }

    public function estimateSeconds(Options $o): float
    {
        // 12 timed variants, 4 × /sleep (Workerman's ~10 s), 10,000 idle connections per server and round.
        return 12 * ($o->warmupSeconds + $o->repetitions * ($o->durationSeconds + 3)) + (1 + $o->repetitions) * 16 + $o->repetitions * 4 * 6 + 20
            + $o->repetitions * 4 * (\min(2, $o->warmupSeconds) + $o->durationSeconds + 8); // hello alone
    }

    public function run(Context $context): void
    {
        $context->pinSupport(Context::LOAD_CPU);
        $root = $context->root();
        $peers = \array_values(\array_filter(self::PEERS, static fn (string $p): bool => PeerServer::built($root, $p)));
        foreach (\array_diff(self::PEERS, $peers) as $missing) {
            $context->results->note(self::NAME, "$missing: not built (bench/peers/build $missing), not measured.");
        }
        // Bobbin as an application installs it (vendor/bin/bobbin, no dev dependencies), as the peers are.
        $bin = BobbinServer::installed($root);
        $started = [];
        try {
            $hello = [self::BOBBIN => $started[] = BobbinServer::start($root, self::BOBBIN, 'examples/hello.php', Context::SERVER_CPU, 1, [], '/', bin: $bin)];
            $crud = [self::BOBBIN => $started[] = BobbinServer::start($root, self::BOBBIN, 'apps/aircraft/server.php', Context::SERVER_CPU, 1, [
                'DATABASE_URL' => $context->database->tcpUrl('bobbin-bench-peers-bobbin'),
                'DATABASE_POOL_MAX' => (string) CrudExperiment::POOL_MAX,
            ], '/health', bin: $bin)];
            foreach ($peers as $peer) {
                $hello[$peer] = $started[] = PeerServer::start($root, $peer, 'hello', Context::SERVER_CPU, [], '/');
                $crud[$peer] = $started[] = PeerServer::start($root, $peer, 'crud', Context::SERVER_CPU, [
                    'DATABASE_URL' => $context->database->tcpUrl("bobbin-bench-peers-$peer"),
                ], '/health');
            }
            foreach ($started as $server) {
                $context->results->command(self::NAME, $server->command());
            }
            $this->servers = \array_keys($hello);
            $turns = [];
            foreach (self::CONNECTIONS as $connections) {
                foreach ($hello as $name => $server) {
                    $turns[] = [self::NAME, self::helloVariant($name, $connections), $this->guarded($context, $name, static fn (float $s): array
                        => $context->plainRun($server, '/', $s, self::NAME, Context::LOAD_CPU, Context::WRK_T2, $connections))];
                }
            }
            foreach ($crud as $name => $server) {
                $turns[] = [self::NAME, self::crudVariant($name), $this->guarded($context, $name, static fn (float $s): array
                    => $context->crudRun($server, $s, self::NAME, Context::LOAD_CPU))];
            }
            foreach ($crud as $name => $server) {
                $turns[] = [self::NAME, self::sleepVariant($name), $this->guarded($context, $name, static fn (): array
                    => SleepExperiment::parallel($context, $server, self::SLEEP_CLIENTS))];
            }
            $context->repeatInTurns($turns);
        } finally {
            foreach ($started as $server) {
                $server->stop();
            }
        }
        $this->helloAlone($context, $peers);
        $context->results->note(self::NAME, 'Peak PSS, hello alone: each hello server started fresh and run by itself (a warm-up, then `wrk -t2 -c1000` for the run\'s duration), in rounds. In the shared run the eight servers are up together and PSS divides a shared page among the processes that map it: swoole.so counts half for Swoole\'s hello server there (its CRUD server maps it too), while a Bobbin server\'s compiled code sits in its own opcache segment and counts whole. The target (≤ 1.0× Swoole) is read from the alone column: one server on a machine.');
        $this->idleConnections($context, $peers);
        $context->results->note(self::NAME, 'Idle connections: Workerman and AMPHP wait with stream_select(), which takes no descriptor numbered 1,024 or above (FD_SETSIZE); past that Workerman\'s worker stops answering (it had accepted a few thousand, none of which it serves), and AMPHP\'s process ends (a server not alive: its PSS reads as 0, hence the negative growth). Swoole waits with epoll, Bobbin with epoll through FFI. "accepted" counts the socket descriptors in the server\'s processes 2 s after the last connect: connections still in the listen backlog are not counted, nor charged.');
        $context->results->note(self::NAME, 'Plaintext: `wrk -t2` with bench/wrk/plain.lua, keep-alive, 50 and 1,000 connections. CRUD: bobbin-crud-load, 50 connections, PostgreSQL over TCP loopback. PHP settings of every server: those `bin/bobbin serve` relaunches itself with (opcache, tracing JIT, Bobbin\\Cli\\OpcacheRelaunch::SETTINGS). Event loops: Swoole its own (epoll); Workerman and AMPHP stream_select() (no ext-event, ext-ev or ext-uv on this machine), which is what they use without an extension. Bobbin runs from the Composer install bench/peers/build makes of this checkout (var/peers/bobbin: `composer install --no-dev`, optimized autoloader, `vendor/bin/bobbin`), as the peers run from theirs.');
    }

    /**
     * The peak PSS of a hello server under 1,000 connections, each server started fresh and run
     * alone, in rounds: in the shared run above PSS splits a page among every process that maps
     * it, so a peer's library (swoole.so, mapped by its hello and CRUD servers) counts half there
     * while a Bobbin server's compiled code, in its own opcache segment, counts whole. Alone, each
     * server's own code counts whole, as on a machine that runs one server.
     *
     * @param list<string> $peers
     */
    private function helloAlone(Context $context, array $peers): void
    {
        $this->eachFreshHelloServer($context, $peers, 'hello alone', function (Server $server, string $name, int $rep) use ($context): void {
            $run = $this->guarded($context, $name, static fn (float $s): array
                => $context->plainRun($server, '/', $s, self::NAME, Context::LOAD_CPU, Context::WRK_T2, self::ALONE_CONNECTIONS));
            $run((float) \min(2, $context->options->warmupSeconds)); // the JIT's traces, as in the rounds above
            foreach ($run((float) $context->options->durationSeconds) as $metric => [$value, $unit]) {
                if ($metric === 'peak_pss_mb' || $metric === 'failed_runs') {
                    $context->results->add(new Sample(self::NAME, self::aloneVariant($name), $metric, $unit, $rep, $value, false));
                }
            }
        });
    }

    public static function aloneVariant(string $server): string
    {
        return "$server hello alone";
    }

    /**
     * IDLE_CONNECTIONS connections that connect and say nothing, against a freshly started hello
     * server of each kind (so that no earlier load's memory hides their cost), in rounds.
     *
     * @param list<string> $peers
     */
    private function idleConnections(Context $context, array $peers): void
    {
        $this->eachFreshHelloServer($context, $peers, self::IDLE_CONNECTIONS . ' idle connections', static function (Server $server, string $name, int $rep) use ($context): void {
            foreach (IdleConnections::measure($server, self::IDLE_CONNECTIONS, self::IDLE_SETTLE_SECONDS) as $metric => [$value, $unit]) {
                $context->results->add(new Sample(self::NAME, self::idleVariant($name), $metric, $unit, $rep, $value, false));
            }
        });
    }

    /**
     * Runs $measure against a hello server of each kind started fresh for it, alone, in rounds.
     *
     * @param list<string> $peers
     * @param \Closure(Server, string, int): void $measure given the server, its name and the round
     */
    private function eachFreshHelloServer(Context $context, array $peers, string $what, \Closure $measure): void
    {
        $root = $context->root();
        for ($rep = 1; $rep <= $context->options->repetitions; $rep++) {
            foreach ([self::BOBBIN, ...$peers] as $name) {
                $context->progress->status("$name: $what, round $rep");
                try {
                    $server = $name === self::BOBBIN
                        ? BobbinServer::start($root, self::BOBBIN, 'examples/hello.php', Context::SERVER_CPU, 1, [], '/', bin: BobbinServer::installed($root))
                        : PeerServer::start($root, $name, 'hello', Context::SERVER_CPU, [], '/');
                } catch (\RuntimeException $e) {
                    $context->results->note(self::NAME, "$name: could not start for the $what: " . \strtok($e->getMessage(), "\n"));
                    continue;
                }
                try {
                    $measure($server, $name, $rep);
                } finally {
                    $server->stop();
                }
            }
        }
    }

    public static function sleepVariant(string $server): string
    {
        return "$server sleep";
    }

    public static function idleVariant(string $server): string
    {
        return "$server idle";
    }

    /**
     * A peer that fails a run (a crash, a refused connection) becomes a noted failure of that run,
     * not the end of the experiment for every server.
     *
     * @param \Closure(float): array<string, array{float, string}> $run
     * @return \Closure(float): array<string, array{float, string}>
     */
    private function guarded(Context $context, string $name, \Closure $run): \Closure
    {
        return static function (float $seconds) use ($context, $name, $run): array {
            try {
                return $run($seconds);
            } catch (\RuntimeException $e) {
                if (\str_starts_with($e->getMessage(), 'interrupted by signal')) {
                    throw $e;
                }
                $context->results->note(self::NAME, "$name: a run failed: " . \strtok($e->getMessage(), "\n"));

                return ['failed_runs' => [1.0, 'runs']];
            }
        };
    }

    public static function helloVariant(string $server, int $connections): string
    {
        return "$server hello c=$connections";
    }

    public static function crudVariant(string $server): string
    {
        return "$server crud";
    }

    /** The section this experiment writes into DOC: figures, per-round ratios, commands, notes. */
    public function markdown(Results $results, string $command): string
    {
        $n = self::NAME;
        $cell = static fn (string $variant, string $metric): string => ($s = $results->summary($n, $variant, $metric)) === null ? '–' : $s->format();
        $md = [];
        $md[] = "Measured with `$command` (after `bench/peers/build`), run `{$results->runId}`: medians over the rounds, min–max in parentheses; ⚠ marks a figure with a run taken while the machine was busy.";
        $md[] = '';
        $md[] = '| server | CPU µs / request, 50 conn. | CPU µs / request, 1,000 conn. | requests/s, 50 conn. | requests/s, 1,000 conn. | CPU µs / CRUD | CRUD/s | peak PSS, hello at 1,000 conn. (MiB) | peak PSS, hello alone at 1,000 conn. (MiB) | peak PSS, CRUD (MiB) |';
        $md[] = '|---|---|---|---|---|---|---|---|---|---|';
        foreach ($this->servers as $server) {
            $md[] = \sprintf(
                '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |',
                $server,
                $cell(self::helloVariant($server, 50), 'cpu_us_per_req'),
                $cell(self::helloVariant($server, 1000), 'cpu_us_per_req'),
                $cell(self::helloVariant($server, 50), 'req_per_s'),
                $cell(self::helloVariant($server, 1000), 'req_per_s'),
                $cell(self::crudVariant($server), 'cpu_us_per_crud'),
                $cell(self::crudVariant($server), 'crud_per_s'),
                $cell(self::helloVariant($server, 1000), 'peak_pss_mb'),
                $cell(self::aloneVariant($server), 'peak_pss_mb'),
                $cell(self::crudVariant($server), 'peak_pss_mb'),
            );
        }
        $md[] = '';
        $md[] = 'Bobbin ÷ peer, the median of the ratios taken within each round (below 1: Bobbin spends less, or does fewer per second):';
        $md[] = '';
        $md[] = '| Bobbin ÷ | CPU / request, 50 conn. | CPU / request, 1,000 conn. | CPU / CRUD | CRUD/s | peak PSS, hello at 1,000 conn. | peak PSS, hello alone | peak PSS, CRUD |';
        $md[] = '|---|---|---|---|---|---|---|---|';
        $ratio = static fn (?float $r): string => $r === null ? '–' : \number_format($r, 2) . '×';
        foreach ($this->servers as $peer) {
            if ($peer === self::BOBBIN) {
                continue;
            }
            $md[] = \sprintf(
                '| %s | %s | %s | %s | %s | %s | %s | %s |',
                $peer,
                $ratio($results->roundRatio($n, self::helloVariant(self::BOBBIN, 50), self::helloVariant($peer, 50), 'cpu_us_per_req')),
                $ratio($results->roundRatio($n, self::helloVariant(self::BOBBIN, 1000), self::helloVariant($peer, 1000), 'cpu_us_per_req')),
                $ratio($results->roundRatio($n, self::crudVariant(self::BOBBIN), self::crudVariant($peer), 'cpu_us_per_crud')),
                $ratio($results->roundRatio($n, self::crudVariant(self::BOBBIN), self::crudVariant($peer), 'crud_per_s')),
                $ratio($results->roundRatio($n, self::helloVariant(self::BOBBIN, 1000), self::helloVariant($peer, 1000), 'peak_pss_mb')),
                $ratio($results->roundRatio($n, self::aloneVariant(self::BOBBIN), self::aloneVariant($peer), 'peak_pss_mb')),
                $ratio($results->roundRatio($n, self::crudVariant(self::BOBBIN), self::crudVariant($peer), 'peak_pss_mb')),
            );
        }
        $md[] = '';
        $md[] = 'CRUD, which core was the limit: the server\'s core (CPU 0) and CPU 1, where PostgreSQL and the load generator run, busy over the run (medians, %):';
        $md[] = '';
        $md[] = '| server | CPU 0 (server) busy | CPU 1 (PostgreSQL, load generator) busy |';
        $md[] = '|---|---|---|';
        foreach ($this->servers as $server) {
            $md[] = \sprintf('| %s | %s | %s |', $server, $cell(self::crudVariant($server), 'server_core_busy'), $cell(self::crudVariant($server), 'cpu1_busy'));
        }
        $md[] = '';
        $md[] = \sprintf('%d × GET /sleep at once (1 s in PostgreSQL each; `curl --parallel`, a connection each), the crud apps: wall time until the last answer (s), and answers that were not 200:', self::SLEEP_CLIENTS);
        $md[] = '';
        $md[] = '| server | wall time (s) | failed |';
        $md[] = '|---|---|---|';
        foreach ($this->servers as $server) {
            $md[] = \sprintf('| %s | %s | %s |', $server, $cell(self::sleepVariant($server), 'wall_s_' . self::SLEEP_CLIENTS), $cell(self::sleepVariant($server), 'failed_' . self::SLEEP_CLIENTS));
        }
        $md[] = '';
        $md[] = \sprintf('%s connections that connect and send nothing, opened at once against a freshly started hello server (PSS growth over the connections the server accepted, read 2 s after the last was opened; a fresh client\'s GET / beside them, median of 5):', \number_format(self::IDLE_CONNECTIONS));
        $md[] = '';
        $md[] = '| server | opened in (s) | accepted | server alive after | PSS growth (MiB) | KiB per connection | fresh client (ms) |';
        $md[] = '|---|---|---|---|---|---|---|';
        foreach ($this->servers as $server) {
            $v = self::idleVariant($server);
            $md[] = \sprintf('| %s | %s | %s | %s | %s | %s | %s |', $server, $cell($v, 'idle_open_seconds'), $cell($v, 'idle_accepted'),
                $cell($v, 'idle_server_alive'), $cell($v, 'idle_pss_growth_mb'), $cell($v, 'idle_kib_per_connection'), $cell($v, 'idle_fresh_ms'));
        }
        $md[] = '';
        $md[] = '(server alive: 1 = yes in every round; fresh client 10,000 ms = no answer within 10 s.)';
        $own = $results->roundRatio($n, self::helloVariant(self::BOBBIN, 1000), self::helloVariant(self::BOBBIN, 50), 'cpu_us_per_req');
        $md[] = '';
        $md[] = 'Bobbin\'s CPU per plaintext request at 1,000 connections ÷ its own at 50 (target ≤ 1.15×): ' . $ratio($own) . '.';
        $md[] = '';
        $md[] = 'Commands (each server pinned with `taskset -c 0`; the load generator on CPU 1):';
        $md[] = '';
        foreach ($results->commands($n) as $line) {
            $md[] = "- `$line`";
        }
        foreach ($results->notes($n) as $note) {
            $md[] = '';
            $md[] = $note;
        }

        return \implode("\n", $md) . "\n";
    }
}
