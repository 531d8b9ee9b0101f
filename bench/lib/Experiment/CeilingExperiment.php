<?php

declare(strict_types=1);

namespace Bobbin\Bench\Experiment;

use Bobbin\Bench\Context;
use Bobbin\Bench\Options;
use Bobbin\Bench\Shell;

/**
 * (5) The database ceiling: pgbench runs the four CRUD statements (bench/lib/sql/crud.pgbench.sql)
 * with the same 50 clients, on the database's core, over the same unix socket. -M prepared is
 * the like-for-like ceiling for a client that prepares its statements (Bobbin's does);
 * -M extended parses and plans every statement.
 */
final class CeilingExperiment implements Experiment
{
    public const NAME = 'ceiling';
    /** @var list<string> */
    public const MODES = ['prepared', 'extended'];

    public function name(): string
    {
        return self::NAME;
    }

    public function title(): string
    {
        return 'database ceiling: pgbench with the same four CRUD statements, 50 clients, -M prepared and -M extended';
    }

    public function estimateSeconds(Options $o): float
    {
        return \count(self::MODES) * ($o->warmupSeconds + $o->repetitions * $o->durationSeconds + 4);
    }

    public function run(Context $context): void
    {
        $context->pinSupport(Context::LOAD_CPU);
        foreach (self::MODES as $mode) {
            $context->repeat(self::NAME, 'pgbench-' . $mode, static fn (float $seconds): array => self::pgbenchRun($context, $mode, $seconds, self::NAME));
        }
    }

    /**
     * One pgbench run of the CRUD script on a freshly reset aircraft table, pinned to $cpu (the
     * database's core unless said otherwise); CRUD/s is pgbench's tps (one CRUD per pgbench
     * transaction).
     *
     * @return array<string, array{float, string}>
     */
    public static function pgbenchRun(Context $context, string $mode, float $seconds, string $experiment, string $cpu = Context::LOAD_CPU): array
    {
        $db = $context->database->parameters();
        $context->database->resetCrudTable();
        $command = $context->pinned($cpu, [
            '/usr/lib/postgresql/15/bin/pgbench', '-n', '-h', $db['host'] ?? '', '-p', $db['port'] ?? '',
            '-U', $db['user'] ?? '', '-c', (string) Context::CRUD_CLIENTS, '-j', '2',
            '-T', (string) (int) \ceil($seconds), '-M', $mode,
            '-f', $context->root() . '/bench/lib/sql/crud.pgbench.sql',
            '-D', 'title1=Sukhoi Superjet 100', '-D', 'title2=Airbus A320', '-D', 'serial=95001',
            '-D', 'assembled=2008-05-19', '-D', 'added=2024-01-31', $db['dbname'] ?? '',
        ]);
        $shown = \str_replace(
            [$context->root() . '/', $db['host'] ?? "\0", ' -p ' . ($db['port'] ?? "\0") . ' '],
            ['', 'SOCKET_DIR', ' -p PORT '],
            Shell::quote($command),
        );
        $context->results->command($experiment, $shown);
        $result = $context->meter->run(null, $command, $seconds + 60.0);
        if (!\preg_match('~^tps = ([\d.]+)~m', $result->load->stdout, $tps)) {
            throw new \RuntimeException("pgbench printed no tps:\n" . $result->load->stdout . $result->load->stderr);
        }
        \preg_match('~number of failed transactions: (\d+)~', $result->load->stdout, $failed);
        $crud = \max(1.0, (float) $tps[1] * $seconds);

        return [
            'crud_per_s' => [(float) $tps[1], 'CRUD/s'],
            'load_cpu_us_per_crud' => [$result->loadCpuSeconds * 1e6 / $crud, 'µs'],
            'cpu1_busy' => [100 * ($result->cpuBusy[(int) Context::LOAD_CPU] ?? 0.0), '%'],
            'failed_cycles' => [(float) ($failed[1] ?? 0), 'cycles'],
        ];
    }
}
