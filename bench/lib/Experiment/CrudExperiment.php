<?php

declare(strict_types=1);

namespace Bobbin\Bench\Experiment;

use Bobbin\Bench\Context;
use Bobbin\Bench\Options;
use Bobbin\Bench\Sample;
use Bobbin\Bench\Server\BobbinServer;
use Bobbin\Bench\Server\ExternalServer;
use Bobbin\Bench\Server\FpmServer;
use Bobbin\Bench\Server\Server;

/**
 * (2) CRUD cycles/s with 50 clients, the server on one core: Bobbin as shipped (opcache and the
 * tracing JIT), Bobbin with opcache alone, and the database ceiling (pgbench -M prepared, the
 * same statements and clients) measured in turns; then nginx + PHP-FPM running the aircraft app
 * with a connection per request and with persistent connections, and the plain-PHP front
 * controller (bench/fpm-plain, pg_pconnect), each at its best pm.max_children; then any peers.
 */
final class CrudExperiment implements Experiment
{
    /** pgbench -M prepared run from the server's core (CPU 0) instead of the database's. */
    public const PGBENCH_FROM_SERVER_CORE = 'pgbench-prepared-server-core';
    public const NAME = 'crud';
    public const POOL_MAX = 32;
    /** nginx + PHP-FPM with bench/fpm-plain/index.php: the strongest FPM baseline. */
    public const FPM_PLAIN = 'fpm-plain';
    public const FPM_PLAIN_SCRIPT = 'bench/fpm-plain/index.php';

    public function name(): string
    {
        return self::NAME;
    }

    public function title(): string
    {
        return 'CRUD cycles/s, 50 clients, server on one core; CPU µs per CRUD, latency, peak PSS';
    }

    public function estimateSeconds(Options $o): float
    {
        $measured = $o->warmupSeconds + $o->repetitions * $o->durationSeconds + 4;
        $points = \count($o->crudChildren());
        $sweep = $points === 1 ? 0 : $points * (\min(2, $o->warmupSeconds) + $o->sweepSeconds + 3);

        return (4 + 3 + \count($o->peers)) * $measured + 3 * $sweep; // bobbin, no-jit, two pgbench placements; three fpm
    }

    public function run(Context $context): void
    {
        $context->pinSupport(Context::LOAD_CPU);
        $root = $context->root();
        $this->measureBobbinAndCeiling($context);

        foreach ([false, true] as $persistent) {
            $variant = $persistent ? 'fpm-persistent' : 'fpm';
            $best = $this->bestChildren($context, $variant, $persistent);
            $context->facts[$variant . '-children'] = $best;
            $appName = 'bobbin-bench-' . $variant;
            $server = FpmServer::start($root, $variant, $best, $persistent, Context::SERVER_CPU, [
                'DATABASE_URL' => $context->database->url($appName),
            ]);
            $context->results->command(self::NAME, $server->command());
            try {
                $this->measure($context, $server);
                // Backends of per-request connections take a moment to exit after the load.
                \usleep(1_500_000);
                $open = $context->database->connectionsOf($appName);
            } finally {
                $server->stop();
            }
            $context->results->add(new Sample(self::NAME, $variant, 'pm_max_children', 'children', 1, $best, false));
            $context->results->add(new Sample(self::NAME, $variant, 'pg_connections_after', 'connections', 1, $open, false));
            $context->results->note(self::NAME, \sprintf(
                '%s: best pm.max_children = %d; %d PostgreSQL connections of this variant were still open after the run (%s).',
                $variant,
                $best,
                $open,
                $open > 0 ? 'persistent connections in effect' : 'none persistent: every request connected anew',
            ));
        }

        $best = $this->bestChildren($context, self::FPM_PLAIN, true, self::FPM_PLAIN_SCRIPT);
        $context->facts[self::FPM_PLAIN . '-children'] = $best;
        $server = FpmServer::start($root, self::FPM_PLAIN, $best, true, Context::SERVER_CPU, [
            'DATABASE_URL' => $context->database->url('bobbin-bench-' . self::FPM_PLAIN),
        ], self::FPM_PLAIN_SCRIPT);
        $context->results->command(self::NAME, $server->command());
        try {
            $this->measure($context, $server);
        } finally {
            $server->stop();
        }
        $context->results->add(new Sample(self::NAME, self::FPM_PLAIN, 'pm_max_children', 'children', 1, $best, false));
        $context->results->note(self::NAME, \sprintf(
            '%s: best pm.max_children = %d; the plain-PHP front controller %s (routing on REQUEST_URI, json_decode, pg_pconnect + pg_query_params, no framework, no Bobbin class).',
            self::FPM_PLAIN,
            $best,
            self::FPM_PLAIN_SCRIPT,
        ));

        foreach ($context->options->peers as $peer) {
            $this->measure($context, new ExternalServer($peer));
        }
    }

    /**
     * The pgbench ceiling is measured here too, in turns with Bobbin, because the target compares
     * the two and the machine's speed drifts between experiments.
     */
    private function measureBobbinAndCeiling(Context $context): void
    {
        $env = [
            'DATABASE_URL' => $context->database->url('bobbin-bench-bobbin'),
            'DATABASE_POOL_MAX' => (string) self::POOL_MAX,
        ];
        $servers = [];
        try {
            foreach (['bobbin' => [], 'bobbin-no-jit' => BobbinServer::NO_JIT_FLAGS] as $name => $flags) {
                $server = BobbinServer::start($context->root(), $name, 'apps/aircraft/server.php', Context::SERVER_CPU, 1, $env, '/health', $flags);
                $servers[] = $server;
                $context->results->command(self::NAME, $server->command());
            }
            $turns = \array_map(
                fn (Server $server): array => [self::NAME, $server->name(), $this->crudRunOf($context, $server)],
                $servers,
            );
            $turns[] = [self::NAME, 'pgbench-prepared', static fn (float $s): array => CeilingExperiment::pgbenchRun($context, 'prepared', $s, self::NAME)];
            // The same from the server's seat: a client on the other core wakes every backend
            // across cores, as Bobbin does; on the database's core pgbench often answers a result
            // before its backend went to sleep. The target is judged on the row above.
            $turns[] = [self::NAME, self::PGBENCH_FROM_SERVER_CORE, static fn (float $s): array => CeilingExperiment::pgbenchRun($context, 'prepared', $s, self::NAME, Context::SERVER_CPU)];
            $context->repeatInTurns($turns);
        } finally {
            foreach ($servers as $server) {
                $server->stop();
            }
        }
    }

    /** @return \Closure(float): array<string, array{float, string}> */
    private function crudRunOf(Context $context, Server $server): \Closure
    {
        return static fn (float $s): array => $context->crudRun($server, $s, self::NAME, Context::LOAD_CPU);
    }

    private function measure(Context $context, Server $server): void
    {
        $context->repeat(self::NAME, $server->name(), $this->crudRunOf($context, $server));
    }

    private function bestChildren(Context $context, string $variant, bool $persistent, ?string $frontController = null): int
    {
        $candidates = $context->options->crudChildren();
        if (\count($candidates) === 1) {
            return $candidates[0];
        }
        $best = 0;
        $bestRate = -1.0;
        foreach ($context->options->crudChildren() as $children) {
            $label = "$variant c=$children";
            $server = FpmServer::start($context->root(), $label, $children, $persistent, Context::SERVER_CPU, [
                'DATABASE_URL' => $context->database->url('bobbin-bench-sweep'),
            ], $frontController);
            try {
                $rate = $context->sweepOnce(
                    self::NAME,
                    $label,
                    static fn (float $s): array => $context->crudRun($server, $s, self::NAME, Context::LOAD_CPU),
                    'crud_per_s',
                );
            } finally {
                $server->stop();
            }
            if ($rate > $bestRate) {
                $bestRate = $rate;
                $best = $children;
            }
        }

        return $best;
    }
}
