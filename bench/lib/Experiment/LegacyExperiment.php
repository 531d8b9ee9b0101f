<?php

declare(strict_types=1);

namespace Bobbin\Bench\Experiment;

use Bobbin\Bench\Context;
use Bobbin\Bench\Options;
use Bobbin\Bench\Server\BobbinServer;
use Bobbin\Bench\Server\FpmServer;

/**
 * A plain-PHP page (superglobals, a blocking query for ten rows, HTML with a form,
 * bench/legacy/index.php) under `bin/bobbin serve --legacy` and under nginx + PHP-FPM: the same
 * file, the same number of processes (workers / pm.max_children), a persistent connection per
 * process on both sides; requests/s and server CPU per request (wrk -t2 -c50).
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
        return 'a plain-PHP page with a database read: --legacy vs PHP-FPM, ' . self::PROCESSES . ' processes each, server on one core';
    }

    public function estimateSeconds(Options $o): float
    {
        return 2 * ($o->warmupSeconds + $o->repetitions * $o->durationSeconds + 6);
    }

    public function run(Context $context): void
    {
        $context->pinSupport(Context::LOAD_CPU);
        $root = $context->root();
        $server = BobbinServer::start($root, 'bobbin-legacy', 'bench/legacy/index.php', Context::SERVER_CPU, self::PROCESSES, [
            'DATABASE_URL' => $context->database->url('bobbin-bench-legacy'),
        ], '/', serveOptions: ['--legacy']);
        $context->results->command(self::NAME, $server->command());
        try {
            $context->repeat(self::NAME, 'bobbin-legacy', static fn (float $s): array => $context->plainRun($server, '/', $s, self::NAME, Context::LOAD_CPU));
        } finally {
            $server->stop();
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
            'Both: %d processes (Bobbin --workers=%d --legacy with its master; FPM pm.max_children=%d), pg_pconnect in bench/legacy/db.php, loaded with require_once (once per Bobbin worker).',
            self::PROCESSES,
            self::PROCESSES,
            self::PROCESSES,
        ));
    }
}
