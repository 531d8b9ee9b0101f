<?php

declare(strict_types=1);

/*
 * bench/nats/instructions.php [--url=nats://…] [--sizes=16,1024] [--messages=20000,100000]
 *     [--jit=tracing|no] [--modes=pub,sub] [--keep=DIR]
 *
 * Instructions per message of this client, counted by valgrind's callgrind, so the figure does
 * not move with whatever else the machine does: bench/nats/client.php publishes (pub) or
 * receives from the C publisher bench/nats/pub.c (sub) A and then B messages;
 * (instructions(B) - instructions(A)) / (B - A) leaves out start-up and shutdown. Runs with
 * opcache and the tracing JIT, as `bin/bobbin serve` does. The server is the checkout's
 * (scripts/nats) unless --url names one. --keep=DIR keeps the callgrind files and the JIT's perf
 * maps in DIR/MODE-SIZE/, for bench/async/instructions-by-function.php DIR/MODE-SIZE. Prints one
 * JSON line per mode and size.
 *
 *   php bench/nats/instructions.php --url=$(scripts/nats url)
 */

use Bobbin\Bench\Callgrind;

require \dirname(__DIR__) . '/lib/autoload.php';

$options = \getopt('', ['url::', 'sizes::', 'messages::', 'jit::', 'modes::', 'keep::']);
$keep = isset($options['keep']) ? (string) $options['keep'] : null;
$root = \dirname(__DIR__, 2);
$url = isset($options['url']) ? (string) $options['url'] : \trim((string) \shell_exec(\escapeshellarg("$root/scripts/nats") . ' start >/dev/null 2>&1; ' . \escapeshellarg("$root/scripts/nats") . ' url'));
$sizes = \array_map('intval', \explode(',', (string) ($options['sizes'] ?? '16,1024')));
[$fewer, $more] = \array_map('intval', \explode(',', (string) ($options['messages'] ?? '20000,100000')));
$jit = (string) ($options['jit'] ?? 'tracing');
$modes = \explode(',', (string) ($options['modes'] ?? 'pub,sub'));
$publisher = "$root/var/bench-nats/pub";
if (!\is_executable($publisher) || \filemtime($publisher) < \filemtime(__DIR__ . '/pub.c')) {
    @\mkdir(\dirname($publisher), 0777, true);
    \exec(\sprintf('gcc -O2 -o %s %s -lnats 2>&1', \escapeshellarg($publisher), \escapeshellarg(__DIR__ . '/pub.c')), $out, $code);
    if ($code !== 0) {
        \fwrite(\STDERR, "building bench/nats/pub.c failed (libnats-dev, gcc):\n" . \implode("\n", $out) . "\n");
        exit(1);
    }
}

/** Instructions of one run of client.php. */
function countInstructions(string $root, string $mode, string $url, int $size, int $count, string $jit, string $publisher, ?string $keep): int
{
    $out = Callgrind::outFile('bobbin-nats-callgrind-');
    $command = [...Callgrind::prefix($out), ...Callgrind::php($jit, $keep !== null), __DIR__ . '/client.php', $mode, $url, (string) $size, (string) $count];
    $client = \proc_open($command, [1 => ['pipe', 'w'], 2 => ['file', $out . '.log', 'w']], $pipes);
    \assert(\is_resource($client));
    if ($mode === 'sub') {
        if (\trim((string) \fgets($pipes[1])) !== 'ready') {
            throw new \RuntimeException('The subscriber did not start: ' . @\file_get_contents($out . '.log'));
        }
        \exec(\sprintf('%s %s bench.instructions %d %d', \escapeshellarg($publisher), \escapeshellarg($url), $count, $size), $published, $code);
        if ($code !== 0) {
            throw new \RuntimeException('The C publisher failed');
        }
    }
    \stream_get_contents($pipes[1]);
    if (\proc_close($client) !== 0) {
        throw new \RuntimeException("client.php $mode failed: " . @\file_get_contents($out . '.log'));
    }
    @\unlink($out . '.log');

    return Callgrind::finish($out, $keep === null ? null : "$keep/$mode-$size", (string) $count);
}

foreach ($modes as $mode) {
    foreach ($sizes as $size) {
        // A subscriber under valgrind lags: what the server holds for it stays under its 64 MB max_pending.
        $scale = $mode === 'sub' ? \min(1.0, 24 * 1024 * 1024 / (($size + 48) * $more)) : 1.0;
        $a = \max(1, (int) ($fewer * $scale));
        $b = \max($a + 1, (int) ($more * $scale));
        $instructionsA = countInstructions($root, $mode, $url, $size, $a, $jit, $publisher, $keep);
        $instructionsB = countInstructions($root, $mode, $url, $size, $b, $jit, $publisher, $keep);
        echo \json_encode([
            'root' => $root,
            'mode' => $mode,
            'size' => $size,
            'jit' => $jit,
            'instructions_per_message' => (int) \round(($instructionsB - $instructionsA) / ($b - $a)),
            'instructions' => [$a => $instructionsA, $b => $instructionsB],
        ]), "\n";
    }
}
