<?php

declare(strict_types=1);

/*
 * bench/async/compare.php --script=loop|http --variant=NAME=ROOT[:DRIVER] ... [--env=NAME:KEY=VALUE ...] [--repeat=5] [--metric=M] [--jit=yes] -- ARGS...
 *
 * Runs bench/async/SCRIPT.php once per variant per round, interleaved (A B C, A B C, ...), so
 * that whatever else the machine does falls on every variant alike; then prints each variant's
 * median, minimum and maximum of the metric, the ratio of medians to the first variant, and the
 * median and range of the per-round ratios (each run against the first variant's run of its round).
 * DRIVER sets BOBBIN_LOOP_DRIVER for that variant (none: the checkout's default). ARGS go to
 * the script; --env=NAME:KEY=VALUE sets an environment variable for one variant's runs (two
 * variants of one checkout: the same code with another setting), --args=NAME:ARGUMENT adds an
 * argument to one variant's (--args=lean:--serve-arg=--job-workers=0); --jit=yes runs it with opcache and the tracing JIT. Hold the machine-wide lock: flock /tmp/bobbin-bench.lock php bench/async/compare.php …
 */

$options = ['variant' => [], 'env' => [], 'args' => [], 'repeat' => '5', 'script' => 'loop', 'metric' => '', 'jit' => 'no'];
$scriptArgs = [];
$args = \array_slice($argv, 1);
while (($argument = \array_shift($args)) !== null) {
    if ($argument === '--') {
        $scriptArgs = $args;
        break;
    }
    if (\preg_match('/^--([a-z]+)=(.*)$/', $argument, $m) !== 1) {
        \fwrite(\STDERR, "Unknown argument $argument\n");
        exit(2);
    }
    if ($m[1] === 'variant' || $m[1] === 'env' || $m[1] === 'args') {
        $options[$m[1]][] = $m[2];
    } else {
        $options[$m[1]] = $m[2];
    }
}
$variants = [];
foreach ($options['variant'] as $spec) {
    if (\preg_match('/^([^=]+)=([^:]+)(?::(.*))?$/', $spec, $m) !== 1) {
        \fwrite(\STDERR, "A variant is NAME=ROOT[:DRIVER], got $spec\n");
        exit(2);
    }
    $variants[$m[1]] = ['root' => (string) \realpath($m[2]), 'driver' => $m[3] ?? '', 'env' => [], 'args' => []];
}
foreach ($options['env'] as $spec) {
    if (\preg_match('/^([^:]+):([A-Za-z_][A-Za-z0-9_]*)=(.*)$/', $spec, $m) !== 1 || !isset($variants[$m[1]])) {
        \fwrite(\STDERR, "An --env is NAME:KEY=VALUE for a NAME given by --variant, got $spec\n");
        exit(2);
    }
    $variants[$m[1]]['env'][$m[2]] = $m[3];
}
foreach ($options['args'] as $spec) {
    if (\preg_match('/^([^:]+):(.+)$/', $spec, $m) !== 1 || !isset($variants[$m[1]])) {
        \fwrite(\STDERR, "An --args is NAME:ARGUMENT for a NAME given by --variant, got $spec\n");
        exit(2);
    }
    $variants[$m[1]]['args'][] = $m[2];
}
if ($variants === []) {
    \fwrite(\STDERR, "Usage: php bench/async/compare.php --script=loop|http --variant=NAME=ROOT[:DRIVER] ... [--repeat=5] [--metric=M] -- ARGS...\n");
    exit(2);
}
$script = __DIR__ . '/' . $options['script'] . '.php';
// As bin/bobbin runs a server: opcache and the tracing JIT (the http script's server has them anyway).
$phpFlags = $options['jit'] === 'yes' ? ['-d', 'opcache.enable_cli=1', '-d', 'opcache.jit=tracing', '-d', 'opcache.jit_buffer_size=64M'] : [];
$metric = $options['metric'] !== '' ? $options['metric'] : ($options['script'] === 'http' ? 'cpu_us_per_request' : 'cpu_us_per_op');

$samples = [];
for ($round = 1; $round <= (int) $options['repeat']; $round++) {
    foreach ($variants as $name => $variant) {
        $env = \getenv();
        unset($env['BOBBIN_LOOP_DRIVER']);
        if ($variant['driver'] !== '') {
            $env['BOBBIN_LOOP_DRIVER'] = $variant['driver'];
        }
        $env = [...$env, ...$variant['env']];
        $process = \proc_open([\PHP_BINARY, ...$phpFlags, $script, $variant['root'], ...$scriptArgs, ...$variant['args']], [1 => ['pipe', 'w']], $pipes, null, $env);
        \assert(\is_resource($process));
        $output = (string) \stream_get_contents($pipes[1]);
        \fclose($pipes[1]);
        \proc_close($process);
        $lines = \array_values(\array_filter(\explode("\n", \trim($output))));
        $result = \json_decode((string) \end($lines), true);
        if (!\is_array($result) || !isset($result[$metric])) {
            \fwrite(\STDERR, "$name: no $metric in:\n$output\n");
            exit(1);
        }
        $samples[$name][] = (float) $result[$metric];
        \fwrite(\STDERR, \sprintf("round %d %-12s %s\n", $round, $name, \json_encode($result)));
    }
}

$median = static function (array $values): float {
    \sort($values);
    $count = \count($values);

    return $count % 2 === 1 ? $values[\intdiv($count, 2)] : ($values[$count / 2 - 1] + $values[$count / 2]) / 2;
};
$first = null;
$firstValues = null;
\printf("%s, %d interleaved rounds, args: %s\n", $metric, (int) $options['repeat'], \implode(' ', $scriptArgs));
\printf("| variant | median | min | max | ratio | ratio per round: median (min–max) |\n|---|---|---|---|---|---|\n");
foreach ($samples as $name => $values) {
    $m = $median($values);
    $first ??= $m;
    $firstValues ??= $values;
    // Each round's ratio to the first variant's run of that round: runs of one round share the
    // machine's state of the moment, so these ratios spread less than the figures themselves.
    $paired = \array_map(static fn (float $value, float $base): float => $value / \max(1e-9, $base), $values, $firstValues);
    \printf("| %s | %.2f | %.2f | %.2f | %.3f | %.3f (%.3f–%.3f) |\n", $name, $m, \min($values), \max($values), $m / $first, $median($paired), \min($paired), \max($paired));
}
