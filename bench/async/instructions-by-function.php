<?php

declare(strict_types=1);

/*
 * bench/async/instructions-by-function.php DIR [--top=40] [--against=OTHER_DIR] [--by=trace|function]
 *
 * Where the instructions of one request go, from what `bench/async/instructions.php --keep=DIR`
 * kept: callgrind's self cost per function in both runs (A and B requests), and per request
 * the difference divided by B - A, so start-up and warm-up drop out. Code the JIT wrote has no
 * symbol for callgrind; the perf map the run kept names it ("TRACE-17$Bobbin\Http\Connection::serve$294":
 * the trace's number, the function and line it starts at). The number is left out so that the
 * same trace of two runs adds up under one name.
 *
 * --against=OTHER_DIR prints both checkouts' figures side by side and sorts by the change.
 * --by=function adds up a function's traces whatever line they start at: two checkouts whose
 * code moved compare by function rather than by line (a trace still counts under the function
 * it starts in, whatever it inlines).
 */

$dir = $argv[1] ?? '';
$options = [];
foreach (\array_slice($argv, 2) as $argument) {
    if (\preg_match('/^--(top|against|by)=(.+)$/', $argument, $m) !== 1) {
        $dir = '';
        break;
    }
    $options[$m[1]] = $m[2];
}
if ($dir === '' || !\is_dir($dir)) {
    \fwrite(\STDERR, "Usage: php bench/async/instructions-by-function.php DIR [--top=40] [--against=OTHER_DIR] [--by=trace|function]\n");
    exit(2);
}
$top = (int) ($options['top'] ?? 40);
$byFunction = ($options['by'] ?? 'trace') === 'function';

/**
 * Self instructions per request by function name.
 *
 * @return array<string, float>
 */
function perRequest(string $dir, bool $byFunction): array
{
    $runs = [];
    foreach (\glob($dir . '/callgrind.*') ?: [] as $file) {
        $runs[(int) \substr((string) \strrchr($file, '.'), 1)] = $file;
    }
    \ksort($runs);
    if (\count($runs) !== 2) {
        throw new \RuntimeException("$dir should hold two callgrind.N files (instructions.php --keep=$dir)");
    }
    [$fewer, $more] = \array_keys($runs);
    $a = selfCost($runs[$fewer], $dir . '/perf.map.' . $fewer);
    $b = selfCost($runs[$more], $dir . '/perf.map.' . $more);
    $result = [];
    foreach ($a + $b as $name => $_) {
        $key = $byFunction ? \preg_replace('/^(JIT TRACE .+)\$\d+$/', '$1', $name) : $name;
        $result[$key] = ($result[$key] ?? 0.0) + (($b[$name] ?? 0) - ($a[$name] ?? 0)) / ($more - $fewer);
    }

    return $result;
}

/** @return array<string, int> self instructions by function name, JIT code named by the perf map */
function selfCost(string $callgrindFile, string $perfMap): array
{
    $jit = [];
    foreach (\is_file($perfMap) ? \file($perfMap, \FILE_IGNORE_NEW_LINES) ?: [] : [] as $line) {
        $parts = \explode(' ', $line, 3);
        if (\count($parts) === 3) {
            $jit[] = [\hexdec($parts[0]), \hexdec($parts[0]) + \hexdec($parts[1]), \preg_replace('/^TRACE-\d+\$/', 'TRACE ', $parts[2])];
        }
    }
    \usort($jit, static fn (array $x, array $y): int => $x[0] <=> $y[0]);
    $output = \shell_exec('callgrind_annotate --inclusive=no --threshold=100 ' . \escapeshellarg($callgrindFile) . ' 2>/dev/null');
    $costs = [];
    foreach (\explode("\n", (string) $output) as $line) {
        if (\preg_match('/^\s*([\d,]+) \([\s\d.]+%\)\s+(.+)$/', $line, $m) !== 1 || \str_contains($m[2], 'PROGRAM TOTALS')) {
            continue;
        }
        $name = \preg_replace("/'\\d+/", '', $m[2]);
        if (\preg_match('/^\?\?\?:0x([0-9a-f]+) \[\?\?\?\]$/', $name, $address) === 1) {
            $name = jitName($jit, (int) \hexdec($address[1])) ?? $name;
        } else {
            $name = \preg_replace('/^.*?:([^:]+ \[[^]]+\])$/', '$1', $name);
        }
        $costs[$name] = ($costs[$name] ?? 0) + (int) \str_replace(',', '', $m[1]);
    }

    return $costs;
}

/** @param list<array{0: int, 1: int, 2: string}> $ranges sorted by start */
function jitName(array $ranges, int $address): ?string
{
    $low = 0;
    $high = \count($ranges) - 1;
    while ($low <= $high) {
        $middle = ($low + $high) >> 1;
        if ($address < $ranges[$middle][0]) {
            $high = $middle - 1;
        } elseif ($address >= $ranges[$middle][1]) {
            $low = $middle + 1;
        } else {
            return 'JIT ' . $ranges[$middle][2];
        }
    }

    return null;
}

$now = perRequest($dir, $byFunction);
if (!isset($options['against'])) {
    \arsort($now);
    \printf("%10s  %s\n", 'per req', 'function (self instructions)');
    foreach (\array_slice($now, 0, $top, true) as $name => $cost) {
        \printf("%10.0f  %s\n", $cost, $name);
    }
    \printf("%10.0f  total\n", \array_sum($now));
    exit(0);
}
$other = perRequest((string) $options['against'], $byFunction);
$change = [];
foreach ($now + $other as $name => $_) {
    $change[$name] = ($now[$name] ?? 0.0) - ($other[$name] ?? 0.0);
}
\uasort($change, static fn (float $x, float $y): int => \abs($y) <=> \abs($x));
\printf("%10s %10s %10s  %s\n", 'change', $dir, 'against', 'function (self instructions per request)');
foreach (\array_slice($change, 0, $top, true) as $name => $difference) {
    \printf("%+10.0f %10.0f %10.0f  %s\n", $difference, $now[$name] ?? 0.0, $other[$name] ?? 0.0, $name);
}
\printf("%+10.0f %10.0f %10.0f  total\n", \array_sum($now) - \array_sum($other), \array_sum($now), \array_sum($other));
