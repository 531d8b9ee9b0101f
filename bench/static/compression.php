<?php

declare(strict_types=1);

/*
 * php bench/static/compression.php [--repeat=300]
 *
 * What --compression costs the worker per response, by zlib level: gzencode() of a JSON list of
 * 200 aircraft (~30 KB, the shape of GET /aircraft) and of a 500 KB stylesheet, median time of
 * --repeat runs and the compressed size. In-process, one core: no server, no network.
 */

$repeat = 300;
foreach (\array_slice($argv, 1) as $argument) {
    if (\preg_match('/^--repeat=(\d+)$/', $argument, $m) === 1) {
        $repeat = (int) $m[1];
    }
}
$json = \json_encode(\array_map(static fn (int $i): array => [
    'id' => $i, 'number' => 'RA-' . (10000 + $i), 'title' => 'Airbus A320-' . ($i % 7) . '00neo',
    'serial_number' => 'MSN ' . (5000 + $i * 7), 'assembly_date' => '2019-0' . (1 + $i % 9) . '-1' . ($i % 9),
    'added_at' => '2026-11-28T10:' . \sprintf('%02d', $i % 60) . ':00Z',
], \range(1, 200)), \JSON_THROW_ON_ERROR);
$css = '';
for ($i = 1; $i <= 16000; $i++) {
    $css .= '.c' . $i . ' { color: #' . \dechex($i * 2654435761 % 0xffffff) . '; margin: ' . ($i % 17) . "px; }\n";
}
echo "| body | bytes | level | compressed | ratio | µs per response (median) |\n|---|---|---|---|---|---|\n";
foreach (['JSON, 200 aircraft' => $json, 'CSS' => $css] as $name => $data) {
    foreach ([1, 4, 6, 9] as $level) {
        $times = [];
        for ($i = 0; $i < $repeat; $i++) {
            $start = \hrtime(true);
            $compressed = \gzencode($data, $level);
            $times[] = (\hrtime(true) - $start) / 1e3;
        }
        \sort($times);
        \printf("| %s | %d | %d | %d | %.1f %% | %.0f |\n", $name, \strlen($data), $level, \strlen((string) $compressed), 100 * \strlen((string) $compressed) / \strlen($data), $times[\intdiv($repeat, 2)]);
    }
}
