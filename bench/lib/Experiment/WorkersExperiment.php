<?php

declare(strict_types=1);

namespace Bobbin\Bench\Experiment;

use Bobbin\Bench\Context;
use Bobbin\Bench\Machine;
use Bobbin\Bench\Options;
use Bobbin\Bench\Server\BobbinServer;
use Bobbin\Bench\Server\FpmServer;
use Bobbin\Bench\Server\Server;

/**
 * (4) Scaling with workers: Bobbin with 1 and 2 workers against nginx (2 workers) + PHP-FPM,
 * nothing pinned: every server, PostgreSQL and the load generator share all cores. Runs only
 * when this checkout's bin/bobbin accepts --workers=2 (the master process exists).
 */
final class WorkersExperiment implements Experiment
{
    public const NAME = 'workers';

    public function name(): string
    {
        return self::NAME;
    }

    public function title(): string
    {
        return 'scaling: Bobbin with 1 and 2 workers vs nginx + PHP-FPM, all cores shared (CRUD and hello-world)';
    }

    public function estimateSeconds(Options $o): float
    {
        return 6 * ($o->warmupSeconds + $o->repetitions * $o->durationSeconds + 4) + 5;
    }

    public function run(Context $context): void
    {
        $root = $context->root();
        $cores = Machine::cpuCount();
        if ($cores < 2 || !BobbinServer::supportsWorkers($root, 2)) {
            $context->results->note(self::NAME, $cores < 2
                ? 'not run: this machine has one CPU.'
                : 'not available yet: `bin/bobbin serve --workers=2` is rejected (no master process in this checkout).');

            return;
        }
        $context->pinSupport(null);
        $dbEnv = ['DATABASE_URL' => $context->database->url('bobbin-bench-workers'), 'DATABASE_POOL_MAX' => (string) CrudExperiment::POOL_MAX];
        $children = $context->facts['fpm-persistent-children'] ?? 16;
        $helloChildren = $context->facts['hello-fpm-children'] ?? 8;

        foreach ([1, 2] as $workers) {
            $this->crud($context, BobbinServer::start($root, "bobbin-{$workers}w", 'apps/aircraft/server.php', null, $workers, $dbEnv, '/health'));
            $this->hello($context, BobbinServer::start($root, "bobbin-{$workers}w", 'examples/hello.php', null, $workers, [], '/'));
        }
        $this->crud($context, FpmServer::start($root, 'fpm-persistent', $children, true, null, $dbEnv, null, 2));
        $this->hello($context, FpmServer::start($root, 'fpm-persistent', $helloChildren, false, null, [], 'bench/fpm/hello.php', 2));
        $context->results->note(self::NAME, "fpm: nginx worker_processes 2; pm.max_children $children for CRUD (--persistent), $helloChildren for hello-world (best of the one-core sweeps, or defaults when those were not run).");
    }

    private function crud(Context $context, Server $server): void
    {
        $context->results->command(self::NAME, $server->command());
        try {
            $context->repeat(self::NAME, $server->name(), static function (float $s) use ($context, $server): array {
                $m = $context->crudRun($server, $s, self::NAME, null);

                return ['crud_per_s' => $m['crud_per_s'], 'cpu_us_per_crud' => $m['cpu_us_per_crud']];
            });
        } finally {
            $server->stop();
        }
    }

    private function hello(Context $context, Server $server): void
    {
        $context->results->command(self::NAME, $server->command());
        try {
            $context->repeat(self::NAME, $server->name(), static function (float $s) use ($context, $server): array {
                $m = $context->plainRun($server, '/', $s, self::NAME, null);

                return ['hello_req_per_s' => $m['req_per_s'], 'cpu_us_per_req' => $m['cpu_us_per_req']];
            });
        } finally {
            $server->stop();
        }
    }
}
