<?php

declare(strict_types=1);

namespace Bobbin\Bench\Report;

use Bobbin\Bench\Results;
use Bobbin\Bench\Summary;

/** The targets of issues 3, 5, 6 and 20, judged on the medians of this one run. */
final class Targets
{
    /** @return list<Target> */
    public static function evaluate(Results $r, bool $persistentInEffect): array
    {
        $persistentCaveat = $persistentInEffect ? '' : 'the "fpm-persistent" row did not keep persistent connections in this run (see the CRUD notes), so this compares against per-request connections';
        $targets = [];
        $helloFpm = $r->summary('hello', 'fpm-plain', 'req_per_s') === null ? 'fpm' : 'fpm-plain';
        $targets[] = self::ratio('hello-world', 'hello-world req/s ≥ 5 × nginx + PHP-FPM (plain PHP echo)',
            $r->summary('hello', 'bobbin', 'req_per_s'), $r->summary('hello', $helloFpm, 'req_per_s'), static fn (float $x): bool => $x >= 5.0);
        $targets[] = self::ratio('hello-world', 'hello-world CPU per request ≤ 1/5 of nginx + PHP-FPM (plain PHP echo)',
            $r->summary('hello', 'bobbin', 'cpu_us_per_req'), $r->summary('hello', $helloFpm, 'cpu_us_per_req'), static fn (float $x): bool => $x <= 0.2);
        $targets[] = self::ratio('CRUD', 'CRUD/s ≥ 1.5 × nginx + PHP-FPM with pg_pconnect',
            $r->summary('crud', 'bobbin', 'crud_per_s'), $r->summary('crud', 'fpm-persistent', 'crud_per_s'), static fn (float $x): bool => $x >= 1.5, $persistentCaveat);
        $targets[] = self::ratio('CRUD', 'CRUD/s ≥ 0.9 × pgbench -M prepared (same statements, same clients)',
            $r->summary('crud', 'bobbin', 'crud_per_s'), self::pgbenchPrepared($r), static fn (float $x): bool => $x >= 0.9);
        $targets[] = self::ratio('CRUD', 'server CPU per CRUD ≤ 1/4 of nginx + PHP-FPM with pg_pconnect',
            $r->summary('crud', 'bobbin', 'cpu_us_per_crud'), $r->summary('crud', 'fpm-persistent', 'cpu_us_per_crud'), static fn (float $x): bool => $x <= 0.25, $persistentCaveat);
        $targets[] = self::ratio('CRUD', 'memory (each page once) ≤ 1/2 of nginx + PHP-FPM with pg_pconnect',
            $r->summary('crud', 'bobbin', 'memory_mb'), $r->summary('crud', 'fpm-persistent', 'memory_mb'), static fn (float $x): bool => $x <= 0.5, $persistentCaveat);
        // Issue 20: against the strongest FPM baseline, under both load generators.
        foreach (['wrk-t50' => 'PG over TCP, wrk -t50 -c50 (spread out)', 'loadgen' => 'PG over TCP, bobbin-crud-load (bursts)'] as $g => $how) {
            $targets[] = self::ratio('CRUD', "server CPU per CRUD ≤ 0.2 × nginx + PHP-FPM plain PHP with pg_pconnect, $how",
                $r->summary('crud-tcp', "bobbin $g", 'cpu_us_per_crud'), $r->summary('crud-tcp', "fpm-plain $g", 'cpu_us_per_crud'), static fn (float $x): bool => $x <= 0.2);
        }
        foreach (['wrk-t50' => 'wrk -t50 -c50 (spread out)', 'loadgen' => 'bobbin-crud-load (bursts)'] as $g => $how) {
            $targets[] = self::ratio('hello-world', "server CPU per plaintext request ≤ 0.06 × nginx + PHP-FPM plain PHP (echo), $how",
                $r->summary('hello', "bobbin $g", 'cpu_us_per_req'), $r->summary('hello', "fpm-plain $g", 'cpu_us_per_req') ?? $r->summary('hello', "fpm $g", 'cpu_us_per_req'), static fn (float $x): bool => $x <= 0.06);
        }
        $sleep = $r->summary('sleep', 'bobbin', 'wall_s_10');
        $failed = $r->summary('sleep', 'bobbin', 'failed_10');
        $targets[] = new Target(
            '/sleep',
            '10 parallel GET /sleep all answered within 1.1 s',
            $sleep?->median,
            $sleep === null ? '–' : $sleep->format() . ' s',
            $sleep === null ? null : $sleep->median <= 1.1 && ($failed === null || $failed->max == 0.0),
            $sleep !== null && $sleep->noisy,
        );

        return $targets;
    }

    /**
     * CRUD/s of pgbench -M prepared: the runs taken in turns with Bobbin's (crud experiment) when
     * there are any, else those of the ceiling experiment.
     */
    public static function pgbenchPrepared(Results $r): ?Summary
    {
        return $r->summary('crud', 'pgbench-prepared', 'crud_per_s') ?? $r->summary('ceiling', 'pgbench-prepared', 'crud_per_s');
    }

    /** @param \Closure(float): bool $isMet */
    private static function ratio(string $area, string $goal, ?Summary $a, ?Summary $b, \Closure $isMet, string $caveat = ''): Target
    {
        if ($a === null || $b === null || $b->median == 0.0) {
            return new Target($area, $goal, null, '–', null, false);
        }
        $ratio = $a->median / $b->median;

        return new Target(
            $area,
            $goal,
            $ratio,
            \sprintf('%s× (%s vs %s)', Summary::number($ratio), Summary::number($a->median), Summary::number($b->median)),
            $isMet($ratio),
            $a->noisy || $b->noisy,
            $caveat,
        );
    }
}
