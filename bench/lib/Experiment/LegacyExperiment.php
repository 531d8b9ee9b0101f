<?php

declare(strict_types=1);

namespace Bobbin\Bench\Experiment;

use Bobbin\Bench\Context;
use Bobbin\Bench\Options;
use Bobbin\Bench\Server\BobbinServer;
use Bobbin\Bench\Server\FpmServer;

/**
 * A plain-PHP page (superglobals, a blocking query for ten rows, HTML with a form,
 * bench/legacy/index.php) under `bin/bobbin serve --legacy` (a fresh process per request),
 * `--legacy --legacy-shared-state` (request after request in each worker) and nginx + PHP-FPM:
 * the same file, as many scripts at once (--legacy-children / workers / pm.max_children);
 * requests/s and server CPU per request (wrk -t2 -c50), the reaped processes' CPU included.
 */
final class LegacyExperiment implements Experiment
{
    public const NAME = 'legacy';
    public const PROCESSES = 4;

    public function name(): string
    {
        return self::NAME;
    }

    public function title(): string
    {
        return 'a plain-PHP page with a database read: --legacy (a process per request), --legacy-shared-state and PHP-FPM, ' . self::PROCESSES . ' at once each, server on one core';
    }

    public function estimateSeconds(Options $o): float
    {
        return 3 * ($o->warmupSeconds + $o->repetitions * $o->durationSeconds + 6);
    }

    public function run(Context $context): void
    {
        $context->pinSupport(Context::LOAD_CPU);
        $root = $context->root();
        $variants = [
            // The default: one worker, a fresh process forked from it per request, at most 4 at once.
            'bobbin-legacy' => ['--workers' => 1, 'options' => ['--legacy', '--legacy-children=' . self::PROCESSES]],
            // The opt-in mode that keeps state: 4 workers, request after request in each.
            'bobbin-legacy-shared-state' => ['--workers' => self::PROCESSES, 'options' => ['--legacy', '--legacy-shared-state']],
        ];
        foreach ($variants as $name => $variant) {
            $server = BobbinServer::start($root, $name, 'bench/legacy/index.php', Context::SERVER_CPU, $variant['--workers'], [
                'DATABASE_URL' => $context->database->url('bobbin-bench-legacy'),
            ], '/', serveOptions: $variant['options']);
            $context->results->command(self::NAME, $server->command());
            try {
                $context->repeat(self::NAME, $name, static fn (float $s): array => $context->plainRun($server, '/', $s, self::NAME, Context::LOAD_CPU));
            } finally {
                $server->stop();
            }
        }
        $server = FpmServer::start($root, 'fpm', self::PROCESSES, false, Context::SERVER_CPU, [
            'DATABASE_URL' => $context->database->url('bobbin-bench-legacy-fpm'),
        ], 'bench/legacy/index.php');
        $context->results->command(self::NAME, $server->command());
        try {
            $context->repeat(self::NAME, 'fpm', static fn (float $s): array => $context->plainRun($server, '/', $s, self::NAME, Context::LOAD_CPU));
        } finally {
            $server->stop();
        }
        $context->results->note(self::NAME, \sprintf(
            'bobbin-legacy: `--legacy`, the default since issue 37 — one worker forks a fresh process per request, at most %d at once (`--legacy-children=%d`); pg_pconnect\'s connection dies with each process, so every request connects. '
            . 'bobbin-legacy-shared-state: `--legacy --legacy-shared-state` (the mode `--legacy` was before issue 37), %d workers, request after request in each, bench/legacy/db.php loaded with require_once once per worker and its persistent connection kept. '
            . 'fpm: pm.max_children=%d, pg_pconnect (one connection per child). WordPress, which the shared-state mode cannot serve, is measured by bench/legacy/wordpress.php (docs/LEGACY.md).',
            self::PROCESSES,
            self::PROCESSES,
            self::PROCESSES,
            self::PROCESSES,
        ));
    }
}
