<?php

declare(strict_types=1);

/*
 * bench/soak/run.php — issue 34's soak: mixed traffic against Bobbin serving the aircraft
 * application (bench/soak/app.php: apps/aircraft/server.php plus the soak's own routes) on this
 * checkout's embedded PostgreSQL, while the master is reloaded and PostgreSQL restarted.
 *
 *   php bench/soak/run.php [--duration=1800] [--quick] [--reload-every=120] [--pg-restart-every=300]
 *       [--crud-clients=6] [--sleep-clients=2] [--upload-clients=1] [--slow-clients=3]
 *       [--sample-every=10] [--keep-rows] [--write-doc]
 *
 * --quick: 180 s, a reload every 60 s and a PostgreSQL restart every 90 s (each fault at least
 * once). Traffic, each kind in processes of its own: CRUD cycles with numbers of their own
 * (bench/faults/lib/CrudLoad.php), GET /sleep (1 s in PostgreSQL), multipart uploads of 16–512
 * KiB checked by their SHA-1, slow clients trickling a 4 KiB upload at ~1.3 KB/s, and after
 * each 99 requests of every client one that calls exit() or exhausts memory_limit (1 %); a probe
 * opens a fresh connection for GET / every 100 ms. `bin/bobbin serve bench/soak/app.php
 * --workers=2 --memory-limit=64M`; SIGHUP to the master every --reload-every s, `scripts/pg
 * restart` every --pg-restart-every s; the workers' and the master's RSS from /proc every
 * --sample-every s. At the end every write is checked against the database
 * (bench/faults/lib/WriteLedger.php). Records: var/soak/TIME/.
 *
 * Exits 1 on a lost or misreported write, a request without an answer, an answer no rule
 * allows, a worker death no request explains, a crash loop, or a master that did not live to
 * the end and stop cleanly. --write-doc replaces "## Soak, measured" in docs/PROCESS.md and
 * updates docs/BENCHMARKS.md.
 */

namespace Bobbin\Bench\Soak;

use Bobbin\Bench\Database;
use Bobbin\Bench\Faults\WriteLedger;
use Bobbin\Bench\Report\DocSection;
use Bobbin\Bench\Server\BobbinServer;
use Bobbin\Bench\Shell;

$root = \dirname(__DIR__, 2);
require "$root/bench/lib/autoload.php";
require "$root/vendor/autoload.php";
require "$root/bench/faults/lib/CrudLoad.php";
require "$root/bench/faults/lib/WriteLedger.php";
require __DIR__ . '/lib/HttpClient.php';
require __DIR__ . '/lib/SoakClients.php';
require __DIR__ . '/lib/SoakReport.php';
\ignore_user_abort(true);

$options = \getopt('', ['duration:', 'quick', 'reload-every:', 'pg-restart-every:', 'crud-clients:', 'sleep-clients:', 'upload-clients:', 'slow-clients:', 'sample-every:', 'keep-rows', 'write-doc', 'client:', 'help']);
if (isset($options['help'])) {
    $self = (string) \file_get_contents(__FILE__);
    echo \substr($self, \strpos($self, '/*') + 3, \strpos($self, '*/') - \strpos($self, '/*') - 3), "\n";
    exit(0);
}

// A load client: started by the run below with --client=KIND:PORT:PREFIX:UNTIL; one JSON record per line.
if (isset($options['client'])) {
    [$kind, $port, $prefix, $until] = \explode(':', (string) $options['client']);
    $out = \fopen('php://stdout', 'w');
    (new SoakClients('127.0.0.1', (int) $port, static function (array $record) use ($out): void {
        \fwrite($out, \json_encode($record, \JSON_THROW_ON_ERROR | \JSON_UNESCAPED_SLASHES | \JSON_INVALID_UTF8_SUBSTITUTE) . "\n");
    }))->run($kind, $prefix, (float) $until);
    exit(0);
}

\pcntl_async_signals(true);
foreach ([\SIGINT, \SIGTERM] as $signal) {
    \pcntl_signal($signal, static function (int $signal): never {
        throw new \RuntimeException("interrupted by signal $signal");
    });
}
$quick = isset($options['quick']);
$number = static fn (string $name, float $default): float => (float) ($options[$name] ?? $default);
$duration = $number('duration', $quick ? 180 : 1800);
$reloadEvery = $number('reload-every', $quick ? 60 : 120);
$pgRestartEvery = $number('pg-restart-every', $quick ? 90 : 300);
$sampleEvery = $number('sample-every', 10);
$clients = [
    'crud' => (int) $number('crud-clients', 6),
    'sleep' => (int) $number('sleep-clients', 2),
    'upload' => (int) $number('upload-clients', 1),
    'slow' => (int) $number('slow-clients', 3),
    'probe' => 1,
];
$shownCommand = \trim('php bench/soak/run.php ' . \implode(' ', \array_filter(\array_slice($argv, 1), static fn (string $a): bool => $a !== '--write-doc')));

$directory = \sprintf('%s/var/soak/%s', $root, \gmdate('Ymd-His'));
@\mkdir($directory, 0777, true);
$run = \bin2hex(\random_bytes(3));
$database = new Database($root);
$database->start();
$server = BobbinServer::start($root, 'bobbin', 'bench/soak/app.php', null, 2, ['DATABASE_URL' => $database->url("bobbin_soak_$run")], '/', serveOptions: [
    '--memory-limit=64M',
    "--pid-file=$directory/bobbin.pid",
]);
$master = $server->rootPids()[0];
$port = (int) \substr($server->baseUrl(), (int) \strrpos($server->baseUrl(), ':') + 1);
$serverLog = "$root/var/bench/bobbin-$port.log";
$logOffset = (int) @\filesize($serverLog);
\fwrite(\STDERR, "soak: {$duration} s against {$server->baseUrl()} (master $master), records in $directory\n");

$started = \microtime(true);
$until = $started + $duration;
$processes = [];
foreach ($clients as $kind => $count) {
    for ($i = 1; $i <= $count; $i++) {
        $file = "$directory/$kind-$i.jsonl";
        $process = \proc_open(
            [\PHP_BINARY, __FILE__, \sprintf('--client=%s:%d:S%s-%s%d:%.3f', $kind, $port, $run, $kind, $i, $until)],
            [0 => ['file', '/dev/null', 'r'], 1 => ['file', $file, 'w'], 2 => ['file', "$directory/$kind-$i.err", 'w']],
            $pipes,
        );
        if (!\is_resource($process)) {
            throw new \RuntimeException("Cannot start the $kind client");
        }
        $processes["$kind-$i"] = $process;
    }
}

// The faults and the samples, on their schedules, until the load ends.
$events = [];
$samples = [];
$nextReload = $started + $reloadEvery;
$nextRestart = $started + $pgRestartEvery;
$nextSample = $started;
$masterDied = null;
try {
    while (($now = \microtime(true)) < $until) {
        if (!\posix_kill($master, 0)) {
            $masterDied = $now - $started;
            break;
        }
        if ($now >= $nextSample) {
            $samples[] = sample($directory, $master, $now - $started);
            $nextSample += $sampleEvery;
        }
        if ($now >= $nextReload) {
            \posix_kill($master, \SIGHUP);
            $events[] = ['t' => \round($now - $started, 1), 'event' => 'reload (SIGHUP)'];
            $nextReload += $reloadEvery;
        }
        if ($now >= $nextRestart) {
            $result = Shell::run([$root . '/scripts/pg', 'restart'], null, 120.0);
            $events[] = ['t' => \round($now - $started, 1), 'event' => \sprintf('PostgreSQL restart (%.1f s, exit %d)', $result->seconds, $result->exitCode)];
            $nextRestart += $pgRestartEvery;
        }
        \usleep(100_000);
    }
    foreach ($processes as $name => $process) {
        $code = \proc_close($process);
        $errors = \trim((string) @\file_get_contents("$directory/$name.err"));
        if ($code !== 0 || $errors !== '') {
            $events[] = ['t' => \round(\microtime(true) - $started, 1), 'event' => "client $name ended with $code: " . \substr($errors, 0, 300)];
        }
    }
    $processes = [];
    $aliveAtEnd = \posix_kill($master, 0);
} finally {
    foreach ($processes as $process) {
        \proc_terminate($process);
        \proc_close($process);
    }
    $stopped = $server->stopWithCode();
}
\file_put_contents("$directory/events.json", \json_encode(['events' => $events, 'samples' => $samples], \JSON_PRETTY_PRINT));

$report = new SoakReport($directory, $run, $duration);
$report->readRecords(\array_keys($clients));
$report->checkLedger(\pg_connect($database->url('bobbin_soak_check'), \PGSQL_CONNECT_FORCE_NEW) ?: throw new \RuntimeException('cannot connect to check the rows'), !isset($options['keep-rows']));
$report->readServerLog((string) \file_get_contents($serverLog, false, null, $logOffset));
$report->setProcess($samples, $events, $masterDied, $aliveAtEnd ?? false, $stopped);
$markdown = $report->markdown($shownCommand, $clients, $reloadEvery, $pgRestartEvery, $sampleEvery);
echo $markdown;
\file_put_contents("$directory/report.md", $markdown);
if (isset($options['write-doc'])) {
    DocSection::write("$root/docs/PROCESS.md", SoakReport::DOC_HEADING, $markdown);
    DocSection::spliceBenchmarks($root);
}
foreach ($report->failures() as $failure) {
    \fwrite(\STDERR, "FAILED: $failure\n");
}
exit($report->failures() === [] ? 0 : 1);

/**
 * RSS of the master and of each HTTP worker (from the master's status file and /proc).
 *
 * @return array{t: float, master: int, workers: array<int, array{rss: int, uptime: float}>}
 */
function sample(string $directory, int $master, float $t): array
{
    $status = \json_decode((string) @\file_get_contents("$directory/bobbin.pid.status.json"), true);
    $workers = [];
    foreach (\is_array($status) ? ($status['workers'] ?? []) : [] as $worker) {
        $rss = rssKb((int) $worker['pid']);
        if ($rss > 0) {
            $workers[(int) $worker['pid']] = ['rss' => $rss, 'uptime' => (float) $worker['uptime']];
        }
    }

    return ['t' => \round($t, 1), 'master' => rssKb($master), 'workers' => $workers];
}

function rssKb(int $pid): int
{
    $status = (string) @\file_get_contents("/proc/$pid/status");

    return \preg_match('~^VmRSS:\s+(\d+) kB~m', $status, $m) === 1 ? (int) $m[1] : 0;
}
