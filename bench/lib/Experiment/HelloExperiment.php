<?php

declare(strict_types=1);

namespace Bobbin\Bench\Experiment;

use Bobbin\Bench\Context;
use Bobbin\Bench\Options;
use Bobbin\Bench\Sample;
use Bobbin\Bench\Server\BobbinServer;
use Bobbin\Bench\Server\FpmServer;

/**
 * (3) hello-world keep-alive requests/s with 50 connections and CPU µs per request: the same
 * examples/hello.php under Bobbin and, through bench/fpm/hello.php, under nginx + PHP-FPM.
 */
final class HelloExperiment implements Experiment
{
    public const NAME = 'hello';

    public function name(): string
    {
        return self::NAME;
    }

    public function title(): string
    {
        return 'hello-world keep-alive requests/s (wrk -t2 -c50) and CPU µs per request, server on one core';
    }

    public function estimateSeconds(Options $o): float
    {
        $measured = $o->warmupSeconds + $o->repetitions * $o->durationSeconds + 4;

        $points = \count($o->helloChildren());

        return 2 * $measured + ($points === 1 ? 0 : $points * (\min(2, $o->warmupSeconds) + $o->sweepSeconds + 3));
    }

    public function run(Context $context): void
    {
        $context->pinSupport(Context::LOAD_CPU);
        $root = $context->root();
        $server = BobbinServer::start($root, 'bobbin', 'examples/hello.php', Context::SERVER_CPU, 1, [], '/');
        $context->results->command(self::NAME, $server->command());
        try {
            $context->repeat(self::NAME, 'bobbin', static fn (float $s): array => $context->plainRun($server, '/', $s, self::NAME, Context::LOAD_CPU));
        } finally {
            $server->stop();
        }

        $candidates = $context->options->helloChildren();
        $best = $candidates[0];
        $bestRate = -1.0;
        foreach (\count($candidates) === 1 ? [] : $candidates as $children) {
            $label = "fpm c=$children";
            $server = FpmServer::start($root, $label, $children, false, Context::SERVER_CPU, [], 'bench/fpm/hello.php');
            try {
                $rate = $context->sweepOnce(self::NAME, $label, static fn (float $s): array => $context->plainRun($server, '/', $s, self::NAME, Context::LOAD_CPU), 'req_per_s');
            } finally {
                $server->stop();
            }
            if ($rate > $bestRate) {
                [$best, $bestRate] = [$children, $rate];
            }
        }
        $server = FpmServer::start($root, 'fpm', $best, false, Context::SERVER_CPU, [], 'bench/fpm/hello.php');
        $context->results->command(self::NAME, $server->command());
        try {
            $context->repeat(self::NAME, 'fpm', static fn (float $s): array => $context->plainRun($server, '/', $s, self::NAME, Context::LOAD_CPU));
        } finally {
            $server->stop();
        }
        $context->facts['hello-fpm-children'] = $best;
        $context->results->add(new Sample(self::NAME, 'fpm', 'pm_max_children', 'children', 1, $best, false));
        $context->results->note(self::NAME, "fpm: best pm.max_children = $best (front controller bench/fpm/hello.php).");
    }
}
