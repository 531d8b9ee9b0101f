<?php

declare(strict_types=1);

namespace Bobbin\Bench\Experiment;

use Bobbin\Bench\Context;
use Bobbin\Bench\Options;
use Bobbin\Bench\Server\BobbinServer;
use Bobbin\Bench\Server\FpmServer;
use Bobbin\Bench\Server\Server;

/**
 * (2b) The CRUD cycle as users see it (issue 20): PostgreSQL over TCP loopback, as a database on
 * another host is reached, and requests spread out in time (`wrk -t50 -c50`, one thread per
 * connection), beside the same servers under bench/loadgen's single-thread epoll generator,
 * whose requests arrive in bursts. Bobbin and nginx + PHP-FPM with the plain-PHP front
 * controller (the strongest FPM baseline), all four measured in turns.
 */
final class CrudTcpExperiment implements Experiment
{
    public const NAME = 'crud-tcp';
    /** pm.max_children when the crud experiment found no best value in this run (issue 20's table: 8). */
    private const DEFAULT_CHILDREN = 8;

    public function name(): string
    {
        return self::NAME;
    }

    public function title(): string
    {
        return 'CRUD as users see it: PostgreSQL over TCP loopback, wrk -t50 -c50 (requests spread out) beside bobbin-crud-load (bursts), server on one core';
    }

    public function estimateSeconds(Options $o): float
    {
        return 4 * ($o->warmupSeconds + $o->repetitions * ($o->durationSeconds + 4)) + 10;
    }

    public function run(Context $context): void
    {
        $context->pinSupport(Context::LOAD_CPU);
        $root = $context->root();
        $children = $context->facts[CrudExperiment::FPM_PLAIN . '-children'] ?? self::DEFAULT_CHILDREN;
        $servers = [];
        try {
            $bobbin = $servers[] = BobbinServer::start($root, 'bobbin', 'apps/aircraft/server.php', Context::SERVER_CPU, 1, [
                'DATABASE_URL' => $context->database->tcpUrl('bobbin-bench-bobbin-tcp'),
                'DATABASE_POOL_MAX' => (string) CrudExperiment::POOL_MAX,
            ], '/health');
            $context->results->command(self::NAME, $bobbin->command());
            $fpm = $servers[] = FpmServer::start($root, CrudExperiment::FPM_PLAIN, $children, true, Context::SERVER_CPU, [
                'DATABASE_URL' => $context->database->tcpUrl('bobbin-bench-fpm-plain-tcp'),
            ], CrudExperiment::FPM_PLAIN_SCRIPT);
            $context->results->command(self::NAME, $fpm->command());
            $turns = [];
            foreach ([$bobbin, $fpm] as $server) {
                foreach ([Context::WRK_SPREAD, Context::LOADGEN] as $generator) {
                    $turns[] = [self::NAME, self::variant($server, $generator), self::runOf($context, $server, $generator)];
                }
            }
            $context->repeatInTurns($turns);
        } finally {
            foreach ($servers as $server) {
                $server->stop();
            }
        }
        $context->results->note(self::NAME, \sprintf(
            'PostgreSQL over TCP (127.0.0.1) for every variant; "%s" rows: `wrk -t50 -c50 -s bench/wrk/crud.lua` (a thread per connection: requests arrive spread out); "%s" rows: bobbin-crud-load (one epoll thread: requests arrive in bursts). %s: pm.max_children = %d%s.',
            Context::WRK_SPREAD,
            Context::LOADGEN,
            CrudExperiment::FPM_PLAIN,
            $children,
            isset($context->facts[CrudExperiment::FPM_PLAIN . '-children']) ? ' (the best of the crud experiment\'s sweep)' : ' (no sweep in this run)',
        ));
    }

    public static function variant(Server $server, string $generator): string
    {
        return $server->name() . ' ' . $generator;
    }

    /** @return \Closure(float): array<string, array{float, string}> */
    private static function runOf(Context $context, Server $server, string $generator): \Closure
    {
        return static fn (float $s): array => $context->crudRun($server, $s, self::NAME, Context::LOAD_CPU, $generator);
    }
}
