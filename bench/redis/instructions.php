<?php

declare(strict_types=1);

/*
 * bench/redis/instructions.php [--url=redis://…] [--commands=5000,25000] [--modes=one,pipelined]
 *     [--roots=DIR,DIR…] [--rounds=1] [--jit=tracing|no] [--keep=DIR]
 *
 * Instructions per command of this client, counted by valgrind's callgrind, so the figure does
 * not move with whatever else the machine does. A child run of this file connects, SETs a small
 * key and then GETs it A and then B times; (instructions(B) - instructions(A)) / (B - A) leaves
 * out start-up and shutdown.
 *   one        one fiber, one GET at a time (a lone caller: one write, one read per command)
 *   pipelined  50 fibers GETting at once (the commands of one turn leave in one write; one
 *              fiber reads for all)
 * --roots measures several checkouts (their vendor/autoload.php) side by side in the same run,
 * one line each, so a change can be compared with the code before it; with --rounds=N the
 * checkouts take turns N times and a last line per mode gives the median of the per-round ratios
 * of each checkout to the first (the count moves by a few per cent from run to run: how many
 * replies one read finds depends on timing). Runs with opcache and the
 * tracing JIT, as `bin/bobbin serve` does. The server is the checkout's (scripts/redis) unless
 * --url names one. --keep=DIR keeps the callgrind files for bench/async/instructions-by-function.php.
 *
 *   flock /tmp/bobbin-bench.lock php bench/redis/instructions.php --url=$(scripts/redis url)
 */

use Bobbin\Bench\Callgrind;

require \dirname(__DIR__) . '/lib/autoload.php';

if (($argv[1] ?? '') === 'child') {
    // One measured run: child ROOT MODE URL COUNT
    [, , $root, $mode, $url, $count] = $argv;
    require $root . '/vendor/autoload.php';
    \Bobbin\Async\Async::installLoopDriver();
    $count = (int) $count;
    $connection = \Bobbin\Redis\Connection::connect($url);
    $connection->execute(['SET', 'bench:instructions', 'value']);
    $fibers = $mode === 'pipelined' ? 50 : 1;
    $futures = [];
    for ($f = 0; $f < $fibers; $f++) {
        $share = \intdiv($count, $fibers) + ($f < $count % $fibers ? 1 : 0);
        $futures[] = \Bobbin\Async\Async::run(static function () use ($connection, $share): void {
            for ($i = 0; $i < $share; $i++) {
                if ($connection->execute(['GET', 'bench:instructions']) !== 'value') {
                    throw new \RuntimeException('GET returned something else');
                }
            }
        });
    }
    foreach ($futures as $future) {
        $future->await();
    }
    $connection->close();
    exit(0);
}

$options = \getopt('', ['url::', 'commands::', 'modes::', 'roots::', 'rounds::', 'jit::', 'keep::']);
$here = \dirname(__DIR__, 2);
$url = isset($options['url']) ? (string) $options['url'] : \trim((string) \shell_exec(\escapeshellarg("$here/scripts/redis") . ' start >/dev/null 2>&1; ' . \escapeshellarg("$here/scripts/redis") . ' url'));
[$fewer, $more] = \array_map('intval', \explode(',', (string) ($options['commands'] ?? '5000,25000')));
$modes = \explode(',', (string) ($options['modes'] ?? 'one,pipelined'));
$roots = \explode(',', (string) ($options['roots'] ?? $here));
$jit = (string) ($options['jit'] ?? 'tracing');
$rounds = \max(1, (int) ($options['rounds'] ?? 1));
$keep = isset($options['keep']) ? (string) $options['keep'] : null;

/** Instructions of one child run. */
function countInstructions(string $root, string $mode, string $url, int $count, string $jit, ?string $keep, string $label): int
{
    $keepDir = $keep === null ? null : "$keep/$label-$mode";
    $command = [...Callgrind::php($jit), __FILE__, 'child', $root, $mode, $url, (string) $count];

    return Callgrind::count($command, $keepDir, (string) $count);
}

$ratios = [];
for ($round = 1; $round <= $rounds; $round++) {
    foreach ($modes as $mode) {
        $first = null;
        foreach ($roots as $n => $root) {
            $a = countInstructions($root, $mode, $url, $fewer, $jit, $keep, "root$n");
            $b = countInstructions($root, $mode, $url, $more, $jit, $keep, "root$n");
            $perCommand = ($b - $a) / ($more - $fewer);
            $first ??= $perCommand;
            $ratios[$mode][$n][] = $perCommand / $first;
            echo \json_encode([
                'round' => $round,
                'root' => $root,
                'mode' => $mode,
                'jit' => $jit,
                'instructions_per_command' => (int) \round($perCommand),
                'instructions' => [$fewer => $a, $more => $b],
            ]), "\n";
        }
    }
}
if (\count($roots) > 1) {
    foreach ($ratios as $mode => $byRoot) {
        $medians = [];
        foreach ($byRoot as $n => $list) {
            \sort($list);
            $middle = \intdiv(\count($list), 2);
            $medians[$roots[$n]] = \round(\count($list) % 2 === 1 ? $list[$middle] : ($list[$middle - 1] + $list[$middle]) / 2, 4);
        }
        echo \json_encode(['mode' => $mode, 'median_ratio_to_first' => $medians, 'rounds' => $rounds]), "\n";
    }
}
