<?php

declare(strict_types=1);

/*
 * User and system CPU per plaintext request, Bobbin beside the peers, in interleaved rounds
 * (issue 41; docs/HTTP.md "The floor beside Workerman"):
 *
 *   flock /tmp/bobbin-bench.lock php bench/peers/cpu-split.php [--rounds=3] [--connections=50] [--duration=4] NAME=WHAT...
 *
 * WHAT: `installed` (Bobbin as bench/peers/build bobbin installs this checkout, as bench/run peers
 * runs it), `checkout:DIR` (DIR/bin/bobbin serving DIR/examples/hello.php: another commit, or
 * one with bench/async/floor.patch applied) or `peer:NAME` (bench/peers/NAME/hello.php, built by
 * bench/peers/build). Each server is pinned to CPU 0 and `wrk -t2` to CPU 1, as in bench/run
 * peers; CPU is read from /proc/PID/stat of the server and its children around each run (after
 * a 1 s warm-up run). Prints each run, then per server the medians and the median of the
 * per-round ratios to the first server named.
 */

require __DIR__ . '/../lib/autoload.php';

use Bobbin\Bench\ProcessTree;
use Bobbin\Bench\Summary;
use Bobbin\Bench\Server\BobbinServer;
use Bobbin\Bench\Server\PeerServer;
use Bobbin\Bench\Server\Server;

$root = \dirname(__DIR__, 2);
$options = ['rounds' => 3, 'connections' => 50, 'duration' => 4];
$specs = [];
foreach (\array_slice($argv, 1) as $argument) {
    if (\preg_match('/^--(rounds|connections|duration)=(\d+)$/', $argument, $m) === 1) {
        $options[$m[1]] = (int) $m[2];
    } elseif (\preg_match('/^([\w-]+)=(installed|checkout:.+|peer:\w+)$/', $argument, $m) === 1) {
        $specs[$m[1]] = $m[2];
    } else {
        \fwrite(\STDERR, "Unknown argument $argument (see the comment at the top of this file)\n");
        exit(2);
    }
}
if ($specs === []) {
    \fwrite(\STDERR, "Name at least one server: NAME=installed, NAME=checkout:DIR or NAME=peer:NAME\n");
    exit(2);
}

/** @return array{float, float} user and system seconds of $server's processes */
function cpuSeconds(Server $server): array
{
    $ticks = 100; // USER_HZ
    $user = $system = 0;
    foreach (ProcessTree::expand($server->rootPids()) as $pid) {
        [$ownUser, $ownSystem] = ProcessTree::ownTicks($pid);
        $user += $ownUser;
        $system += $ownSystem;
    }

    return [$user / $ticks, $system / $ticks];
}

$servers = [];
try {
    foreach ($specs as $name => $what) {
        $servers[$name] = match (true) {
            $what === 'installed' => BobbinServer::start($root, $name, 'examples/hello.php', '0', 1, [], '/', bin: BobbinServer::installed($root)),
            \str_starts_with($what, 'checkout:') => BobbinServer::start(\substr($what, 9), $name, 'examples/hello.php', '0', 1, [], '/', bin: \substr($what, 9) . '/bin/bobbin'),
            default => PeerServer::start($root, \substr($what, 5), 'hello', '0', [], '/'),
        };
    }
    $totals = [];
    for ($round = 1; $round <= $options['rounds']; $round++) {
        foreach ($servers as $name => $server) {
            $wrk = \sprintf('taskset -c 1 wrk -t2 -c%d -d%%ds %s/ 2>&1', $options['connections'], \escapeshellarg($server->baseUrl()));
            \shell_exec(\sprintf($wrk, 1));
            [$user0, $system0] = cpuSeconds($server);
            $out = (string) \shell_exec(\sprintf($wrk, $options['duration']));
            [$user1, $system1] = cpuSeconds($server);
            if (\preg_match('/(\d+) requests in/', $out, $m) !== 1 || (int) $m[1] === 0) {
                throw new \RuntimeException("$name: wrk answered no requests:\n$out");
            }
            $requests = (int) $m[1];
            $user = ($user1 - $user0) * 1e6 / $requests;
            $system = ($system1 - $system0) * 1e6 / $requests;
            $totals[$name][] = [$user, $system, $user + $system];
            \printf("round %d %-12s user %5.2f  system %5.2f  total %5.2f µs/request  %8.0f requests/s\n", $round, $name, $user, $system, $user + $system, $requests / $options['duration']);
        }
    }
} finally {
    foreach ($servers as $server) {
        $server->stop();
    }
}
$first = \array_key_first($totals);
echo "\n| server | user µs | system µs | total µs | total ÷ $first, per round |\n|---|---|---|---|---|\n";
foreach ($totals as $name => $runs) {
    $ratios = \array_map(static fn (array $run, array $base): float => $run[2] / $base[2], $runs, $totals[$first]);
    \printf("| %s | %.2f | %.2f | %.2f | %.2f× (%s) |\n", $name, Summary::median(\array_column($runs, 0)), Summary::median(\array_column($runs, 1)), Summary::median(\array_column($runs, 2)),
        Summary::median($ratios), \implode(', ', \array_map(static fn (float $r): string => \number_format($r, 2), $ratios)));
}
