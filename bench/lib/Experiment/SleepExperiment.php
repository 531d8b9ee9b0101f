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
 * (1) `GET /sleep` (pg_sleep(1), then a UUID) from 10 and 100 parallel clients: wall time
 * until every response arrived. One Bobbin process on one core holds all the waits; FPM needs
 * one child per waiting client, so it gets exactly as many children as clients.
 */
final class SleepExperiment implements Experiment
{
    public const NAME = 'sleep';
    /** @var list<int> */
    public const CLIENTS = [10, 100];

    public function name(): string
    {
        return self::NAME;
    }

    public function title(): string
    {
        return 'GET /sleep (1 s in PostgreSQL) with 10 and 100 parallel clients: wall time for all of them';
    }

    public function estimateSeconds(Options $o): float
    {
        return (2 + \count($o->peers)) * \count(self::CLIENTS) * ((1 + $o->repetitions) * 2.5 + 2) + 5;
    }

    public function run(Context $context): void
    {
        $context->pinSupport(Context::LOAD_CPU);
        $root = $context->root();
        $maxClients = \max(self::CLIENTS);
        $server = BobbinServer::start($root, 'bobbin', 'apps/aircraft/server.php', Context::SERVER_CPU, 1, [
            'DATABASE_URL' => $context->database->url('bobbin-bench-bobbin'),
            'DATABASE_POOL_MAX' => (string) $maxClients,
        ], '/health');
        $context->results->command(self::NAME, $server->command());
        try {
            foreach (self::CLIENTS as $clients) {
                $this->measure($context, $server, $clients);
            }
        } finally {
            $server->stop();
        }
        $context->results->note(self::NAME, "bobbin: one process, DATABASE_POOL_MAX=$maxClients (a waiting /sleep holds a connection for its second).");

        foreach (self::CLIENTS as $clients) {
            $server = FpmServer::start($root, 'fpm', $clients, false, Context::SERVER_CPU, [
                'DATABASE_URL' => $context->database->url('bobbin-bench-fpm'),
            ]);
            $context->results->command(self::NAME, $server->command());
            try {
                $this->measure($context, $server, $clients);
            } finally {
                $server->stop();
            }
        }
        $context->results->note(self::NAME, 'fpm: pm.max_children = the number of clients (10, then 100), a connection per request.');

        foreach ($context->options->peers as $peer) {
            foreach (self::CLIENTS as $clients) {
                $this->measure($context, new ExternalServer($peer), $clients);
            }
        }
    }

    private function measure(Context $context, Server $server, int $clients): void
    {
        $context->results->command(self::NAME, \sprintf(
            'taskset -c %s curl --parallel --parallel-immediate --parallel-max %d --no-progress-meter --max-time 60 -w \'%%{http_code}\\n\' -o /dev/null URL/sleep  # the -o/URL pair %d times',
            Context::LOAD_CPU,
            $clients,
            $clients,
        ));
        $context->repeat(self::NAME, $server->name(), static fn (): array => self::parallel($context, $server, $clients));
    }

    /**
     * One run of $clients parallel GET /sleep (measure()'s, and `bench/run peers`'s).
     *
     * @return array<string, array{float, string}>
     */
    public static function parallel(Context $context, Server $server, int $clients): array
    {
        // curl starts every transfer at once, each on its own connection; the wall time of the
        // whole curl process is what is reported (it includes curl's own start, a few ms).
        $command = ['curl', '--parallel', '--parallel-immediate', '--parallel-max', (string) $clients,
            '--no-progress-meter', '--max-time', '60', '-w', '%{http_code}\n'];
        for ($i = 0; $i < $clients; $i++) {
            \array_push($command, '-o', '/dev/null', $server->baseUrl() . '/sleep');
        }
        $result = $context->meter->run($server, $context->pinned(Context::LOAD_CPU, $command), 120.0);
        $ok = \preg_match_all('~^200$~m', $result->load->stdout);

        return [
            "wall_s_$clients" => [$result->load->seconds, 's'],
            "failed_$clients" => [(float) ($clients - $ok), 'requests'],
            ...$result->residentMetric("memory_mb_$clients"),
            "peak_pss_mb_$clients" => [$result->peakPssKb / 1024, 'MiB'],
        ];
    }
}
