<?php

declare(strict_types=1);

/*
 * A microbenchmark (seconds, not a bench run) behind the choice in docs/JOBS.md "Authenticated
 * tasks": what decoding the jobs benchmark's payloads costs with unserialize() as it was, with
 * unserialize() limited to the declared classes, and with formats that cannot make objects at
 * all (JSON, the MessagePack codec of src/MessagePack) — and what signing and verifying each
 * costs (JobSigner, and hash_hmac() for comparison).
 *
 *   php bench/jobs/payload-codecs.php
 */

use Bobbin\Apps\Aircraft\Chart\FleetChartTask;
use Bobbin\Bench\Jobs\EmptyTask;
use Bobbin\Jobs\Security\JobKeys;
use Bobbin\Jobs\Security\JobSigner;
use Bobbin\MessagePack\Decoder;
use Bobbin\MessagePack\Encoder;

require_once \dirname(__DIR__, 2) . '/vendor/autoload.php';
require_once __DIR__ . '/tasks.php';

$fleet = [];
for ($year = 1985; $year <= 2024; $year++) {
    $fleet[$year] = 40 + (int) (30 * \sin($year / 3)) + ($year - 1985) * 2;
}
$chart = new FleetChartTask($fleet, 600, 338);
$png = $chart->run();
$rows = [];
for ($i = 0; $i < 2000; $i++) {
    $rows[] = ['id' => $i, 'registration' => 'D-A' . \str_pad((string) $i, 4, '0', \STR_PAD_LEFT), 'seats' => 180, 'built' => 1990 + $i % 30];
}

// [label, value as PHP serializes it, the same data without objects (what JSON/MessagePack would carry), allowed classes]
$cases = [
    ['empty task (EmptyTask)', new EmptyTask(), [], [EmptyTask::class]],
    ['chart task (FleetChartTask)', $chart, ['countsByYear' => $fleet, 'width' => 600, 'height' => 338], [FleetChartTask::class]],
    ['chart result (PNG)', $png, $png, []],
    ['2,000 rows result', $rows, $rows, []],
];
$key = \random_bytes(32);
$signer = new JobSigner(new JobKeys($key));
$msgpackEncoder = new Encoder();
$msgpackDecoder = new Decoder();

/** Median of 7 rounds, nanoseconds per call. */
$time = static function (\Closure $work, int $iterations): float {
    $rounds = [];
    for ($round = 0; $round < 7; $round++) {
        $started = \hrtime(true);
        for ($i = 0; $i < $iterations; $i++) {
            $work();
        }
        $rounds[] = (\hrtime(true) - $started) / $iterations;
    }
    \sort($rounds);

    return $rounds[3];
};

echo "| payload | bytes (serialize) | unserialize() | unserialize(allowed_classes) | json_decode | MessagePack decode | JobSigner seal + open | hash_hmac() twice |\n";
echo "|---|---:|---:|---:|---:|---:|---:|---:|\n";
foreach ($cases as [$label, $value, $plain, $allowed]) {
    $serialized = \serialize($value);
    $json = \json_encode(\is_string($plain) ? \base64_encode($plain) : $plain, \JSON_THROW_ON_ERROR);
    $msgpack = $msgpackEncoder->encode($plain);
    $iterations = \strlen($serialized) > 10_000 ? 300 : 20_000;
    $us = static fn (float $ns): string => \sprintf('%.2f µs', $ns / 1000);
    echo \sprintf(
        "| %s | %d | %s | %s | %s | %s | %s | %s |\n",
        $label,
        \strlen($serialized),
        $us($time(static fn () => \unserialize($serialized), $iterations)),
        $us($time(static fn () => \unserialize($serialized, ['allowed_classes' => $allowed]), $iterations)),
        $us($time(static fn () => \is_string($plain) ? \base64_decode((string) \json_decode($json)) : \json_decode($json, true), $iterations)),
        $us($time(static fn () => $msgpackDecoder->decode($msgpack), $iterations)),
        $us($time(static fn () => $signer->openTask($signer->sealTask($serialized, '_INBOX.x.1', 1e10), '_INBOX.x.1'), $iterations)),
        $us($time(static fn () => \hash_equals(\hash_hmac('sha256', $serialized, $key, true), \hash_hmac('sha256', $serialized, $key, true)), $iterations)),
    );
}
