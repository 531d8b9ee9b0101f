<?php

declare(strict_types=1);

namespace Bobbin\Bench\Experiment;

use Bobbin\Bench\Context;
use Bobbin\Bench\Options;
use Bobbin\Bench\Sample;
use Bobbin\Bench\Server\BobbinServer;
use Bobbin\Bench\Server\FpmServer;
use Bobbin\Bench\Server\Server;

/**
 * (3) hello-world keep-alive requests/s with 50 connections and CPU µs per request:
 * examples/hello.php under Bobbin; under nginx + PHP-FPM the same file through bench/fpm/hello.php
 * ("fpm") and a plain-PHP echo, bench/fpm-plain/hello.php ("fpm-plain", the strongest). Each
 * server under three load generators, in turns: `wrk -t2` (the figure of earlier runs), `wrk
 * -t50` (a thread per connection: requests spread out, as real clients send them) and
 * bobbin-crud-load --path (one epoll thread: requests in bursts).
 */
final class HelloExperiment implements Experiment
{
    public const NAME = 'hello';
    /** examples/hello.php through Bobbin's SAPI bridge: the same application as Bobbin runs. */
    public const FPM = 'fpm';
    public const FPM_SCRIPT = 'bench/fpm/hello.php';
    /** A plain-PHP `echo` front controller: the strongest FPM baseline, which the headline ratios use. */
    public const FPM_PLAIN = 'fpm-plain';
    public const FPM_PLAIN_SCRIPT = 'bench/fpm-plain/hello.php';

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
        $measured = 3 * ($o->warmupSeconds + $o->repetitions * ($o->durationSeconds + 2)) + 4;

        $points = \count($o->helloChildren());

        return 3 * $measured + ($points === 1 ? 0 : 2 * $points * (\min(2, $o->warmupSeconds) + $o->sweepSeconds + 3));
    }

    public function run(Context $context): void
    {
        $context->pinSupport(Context::LOAD_CPU);
        $root = $context->root();
        $server = BobbinServer::start($root, 'bobbin', 'examples/hello.php', Context::SERVER_CPU, 1, [], '/');
        $context->results->command(self::NAME, $server->command());
        try {
            $context->repeatInTurns(self::turns($context, $server));
        } finally {
            $server->stop();
        }

        foreach ([self::FPM => self::FPM_SCRIPT, self::FPM_PLAIN => self::FPM_PLAIN_SCRIPT] as $name => $script) {
            $best = $this->bestChildren($context, $name, $script);
            $server = FpmServer::start($root, $name, $best, false, Context::SERVER_CPU, [], $script);
            $context->results->command(self::NAME, $server->command());
            try {
                $context->repeatInTurns(self::turns($context, $server));
            } finally {
                $server->stop();
            }
            $context->facts["hello-$name-children"] = $best;
            $context->results->add(new Sample(self::NAME, $name, 'pm_max_children', 'children', 1, $best, false));
            $context->results->note(self::NAME, "$name: best pm.max_children = $best (front controller $script).");
        }
        $context->results->note(self::NAME, \sprintf(
            'Load generators: "bobbin", "fpm" and "fpm-plain" rows `wrk -t2 -c50` (as in earlier runs); "%s" rows `wrk -t50 -c50` (a thread per connection: requests arrive spread out, a wake-up each); "%s" rows bobbin-crud-load --path=/ with 50 connections (one epoll thread: requests arrive in bursts). Measured in turns per server.',
            Context::WRK_SPREAD,
            Context::LOADGEN,
        ));
    }

    /** The variant's name under $generator: the server's own name for wrk -t2 (continuity with earlier runs). */
    public static function variant(string $server, string $generator): string
    {
        return $generator === Context::WRK_T2 ? $server : $server . ' ' . $generator;
    }

    /** @return list<array{string, string, \Closure(float): array<string, array{float, string}>}> */
    private static function turns(Context $context, Server $server): array
    {
        $turns = [];
        foreach ([Context::WRK_T2, Context::WRK_SPREAD, Context::LOADGEN] as $generator) {
            $turns[] = [self::NAME, self::variant($server->name(), $generator),
                static fn (float $s): array => $context->plainRun($server, '/', $s, self::NAME, Context::LOAD_CPU, $generator)];
        }

        return $turns;
    }

    /** The pm.max_children of $candidates with the most requests/s for $script (no sweep when there is one candidate). */
    private function bestChildren(Context $context, string $name, string $script): int
    {
        $candidates = $context->options->helloChildren();
        $best = $candidates[0];
        $bestRate = -1.0;
        foreach (\count($candidates) === 1 ? [] : $candidates as $children) {
            $label = "$name c=$children";
            $server = FpmServer::start($context->root(), $label, $children, false, Context::SERVER_CPU, [], $script);
            try {
                $rate = $context->sweepOnce(self::NAME, $label, static fn (float $s): array => $context->plainRun($server, '/', $s, self::NAME, Context::LOAD_CPU), 'req_per_s');
            } finally {
                $server->stop();
            }
            if ($rate > $bestRate) {
                [$best, $bestRate] = [$children, $rate];
            }
        }

        return $best;
    }
}
