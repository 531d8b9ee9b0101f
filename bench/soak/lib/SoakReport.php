<?php

declare(strict_types=1);

namespace Bobbin\Bench\Soak;

use Bobbin\Bench\Faults\WriteLedger;

/**
 * What a soak run's records, the database, the server's log and the samples say: the answers
 * per class of request, the ledger of writes, the worker deaths against the requests that
 * explain them, the RSS slopes and the fresh client's longest wait; and every failure.
 */
final class SoakReport
{
    public const DOC_HEADING = '## Soak, measured';
    /** Statuses that are a success, per class (a 503 is counted apart, by who gave it). */
    private const OK = ['crud' => [200, 201, 204], 'sleep' => [200], 'upload' => [200], 'slow' => [200], 'fatal' => [500], 'probe' => [200]];
    private const EXIT_CODE = ['/soak/exit' => 7, '/soak/oom' => 255];

    /** @var array<string, array{requests: int, ok: int, dying: int, unknown: int, database: int, idle: int, none: int, other: int}> */
    private array $classes = [];
    /** @var array<string, int> "class status detail" => count, for the answers no rule allows */
    private array $others = [];
    /** @var array<string, int> fatal path => answered 500 */
    private array $fatal500 = [];
    private int $serverUnavailable = 0;
    /** @var list<float> probe milliseconds */
    private array $probeMs = [];
    private WriteLedger $ledger;
    /** @var list<string> */
    private array $mismatches = [];
    /** @var array<string, array{int, int}> "METHOD answered 503 by a dying worker|got no answer" => [requests, done all the same] */
    private array $unknownWrites = [];
    private string $log = '';
    /** @var array<int, int> exit code (-signal) => worker deaths logged */
    private array $deaths = [];
    private int $abruptEnds = 0;
    private int $namedUnavailable = 0;
    /** @var list<array{t: float, master: int, workers: array<int, array{rss: int, uptime: float}>}> */
    private array $samples = [];
    /** @var list<array{t: float, event: string}> */
    private array $events = [];
    private ?float $masterDied = null;
    private bool $aliveAtEnd = false;
    private int $stopCode = -1;
    private int $rowsPresent = 0;
    private int $rowsAbsent = 0;

    public function __construct(private readonly string $directory, private readonly string $run, private readonly float $duration)
    {
        $this->ledger = new WriteLedger();
    }

    /** @param list<string> $kinds */
    public function readRecords(array $kinds): void
    {
        foreach (\glob($this->directory . '/*.jsonl') ?: [] as $file) {
            $handle = \fopen($file, 'r');
            while ($handle !== false && ($line = \fgets($handle)) !== false) {
                $this->add(\json_decode($line, true, 8, \JSON_THROW_ON_ERROR));
            }
            if ($handle !== false) {
                \fclose($handle);
            }
        }
    }

    /** @param \PgSql\Connection $database */
    public function checkLedger($database, bool $deleteRows): void
    {
        $pattern = "S{$this->run}-%";
        $rows = \pg_query_params($database, 'SELECT number, title FROM aircraft WHERE number LIKE $1', [$pattern]);
        $titles = [];
        foreach ($rows === false ? [] : \pg_fetch_all($rows) as $row) {
            $titles[(string) $row['number']] = (string) $row['title'];
        }
        $this->mismatches = $this->ledger->check($titles);
        [$this->rowsPresent, $this->rowsAbsent] = $this->ledger->expectations();
        foreach ($this->ledger->unknownOutcomes() as $write) {
            ['method' => $method, 'number' => $number, 'title' => $title] = $write;
            $how = $method . ($write['status'] === 0 ? ' got no answer' : ' answered 503 by a dying worker');
            $this->unknownWrites[$how] ??= [0, 0];
            $this->unknownWrites[$how][0]++;
            // Done all the same: a created row exists, a deleted one is gone, a new title is stored
            // (a PUT whose row a later DELETE removed cannot tell, and counts as not done).
            $done = match ($method) {
                'POST' => isset($titles[$number]),
                'DELETE' => !isset($titles[$number]),
                'PUT' => ($titles[$number] ?? null) === $title,
                default => false,
            };
            if ($done) {
                $this->unknownWrites[$how][1]++;
                $this->mismatches[] = "$number: $how, but the database has the change";
            }
        }
        if ($deleteRows) {
            \pg_query_params($database, 'DELETE FROM aircraft WHERE number LIKE $1', [$pattern]);
        }
    }

    public function readServerLog(string $log): void
    {
        $this->log = $log;
        \preg_match_all('~Worker \d+ (?:exited with code (\d+)|was killed by signal (\d+))~', $log, $matches, \PREG_SET_ORDER);
        foreach ($matches as $m) {
            $code = ($m[2] ?? '') !== '' ? -(int) $m[2] : (int) $m[1];
            $this->deaths[$code] = ($this->deaths[$code] ?? 0) + 1;
        }
        \preg_match_all('~The process ended while handling (\d+) request\(s\): (.*?); (?:fatal error|exit\(\))[^\n]*?(?:; (\d+) request\(s\) not yet started were answered 503)?\n~', $log, $matches, \PREG_SET_ORDER);
        foreach ($matches as $m) {
            $this->abruptEnds++;
            $this->namedUnavailable += (int) $m[1] - \substr_count($m[2], '(its code ended the process)') + (int) ($m[3] ?? 0);
        }
    }

    /**
     * @param list<array{t: float, master: int, workers: array<int, array{rss: int, uptime: float}>}> $samples
     * @param list<array{t: float, event: string}> $events
     */
    public function setProcess(array $samples, array $events, ?float $masterDied, bool $aliveAtEnd, int $stopCode): void
    {
        [$this->samples, $this->events, $this->masterDied, $this->aliveAtEnd, $this->stopCode] = [$samples, $events, $masterDied, $aliveAtEnd, $stopCode];
    }

    /** @return list<string> */
    public function failures(): array
    {
        $failures = [];
        foreach ($this->classes as $class => $c) {
            if ($c['none'] > 0) {
                $failures[] = "$class: {$c['none']} request(s) got no answer";
            }
            if ($c['other'] > 0) {
                $failures[] = "$class: {$c['other']} answer(s) no rule allows";
            }
        }
        foreach ($this->ledger->unexpected() as $line) {
            $failures[] = "ledger: $line";
        }
        foreach ($this->mismatches as $line) {
            $failures[] = "ledger: $line";
        }
        foreach ($this->unexpectedDeaths() as $line) {
            $failures[] = "worker deaths: $line";
        }
        if ($this->serverUnavailable > $this->namedUnavailable) {
            $failures[] = "the server's own 503 answered {$this->serverUnavailable} requests, but the dying workers' log lines name {$this->namedUnavailable}";
        }
        if (\str_contains($this->log, 'crash loop:')) {
            $failures[] = 'the log reports a crash loop';
        }
        if ($this->masterDied !== null || !$this->aliveAtEnd) {
            $failures[] = 'the master died' . ($this->masterDied === null ? '' : \sprintf(' after %.0f s', $this->masterDied));
        }
        if ($this->stopCode !== 0) {
            $failures[] = "the master's stop ended with code {$this->stopCode}";
        }
        foreach ($this->events as $event) {
            if (\str_starts_with($event['event'], 'client ') || (\str_starts_with($event['event'], 'PostgreSQL') && !\str_contains($event['event'], 'exit 0)'))) {
                $failures[] = "at {$event['t']} s: {$event['event']}";
            }
        }

        return $failures;
    }

    /** @param array<string, int> $clients */
    public function markdown(string $command, array $clients, float $reloadEvery, float $pgRestartEvery, float $sampleEvery): string
    {
        $md = [\sprintf(
            'Run of %s UTC, `flock /tmp/bobbin-bench.lock %s`: %.0f min of traffic against `bin/bobbin serve bench/soak/app.php --workers=2 --memory-limit=64M` (the aircraft application on the embedded PostgreSQL, plus the soak\'s routes) from %d CRUD, %d `/sleep`, %d upload and %d slow clients and a fresh-connection probe; every 99th request of each client is followed by one that calls `exit()` or exhausts `memory_limit`; a reload (SIGHUP) every %.0f s and `scripts/pg restart` every %.0f s; RSS sampled every %.0f s. 2 vCPUs shared with other work, unpinned.',
            \gmdate('Y-m-d H:i'), $command, $this->duration / 60, $clients['crud'], $clients['sleep'], $clients['upload'], $clients['slow'], $reloadEvery, $pgRestartEvery, $sampleEvery,
        ), '', '| class | requests | answered as expected | 503 from a dying worker | 504 outcome unknown | 503 from the application (database down) | no answer on a reused keep-alive connection | other no answer | other answer |', '|---|---:|---:|---:|---:|---:|---:|---:|---:|'];
        \ksort($this->classes);
        foreach ($this->classes as $class => $c) {
            $md[] = \sprintf('| %s | %s | %s | %s | %s | %s | %s | %s | %s |', $class, \number_format($c['requests']), \number_format($c['ok']), \number_format($c['dying']), \number_format($c['unknown']), \number_format($c['database']), $c['idle'], $c['none'], $c['other']);
        }
        $md[] = '';
        $md[] = '"As expected": CRUD 200/201/204, `/sleep` 200, uploads 200 with the right size and SHA-1, the fatal requests 500, the probe 200. The probe reads only the status line, so its 503s are counted as a dying worker\'s. "No answer on a reused keep-alive connection": the connection closed before any byte of an answer to a request sent on a connection that had served one before — the server closed it idle (a worker that ended closes its idle connections) as the request went out; a write the server never read is not done, which the ledger checks.';
        if ($this->others !== []) {
            $md[] = '';
        }
        foreach (\array_slice($this->others, 0, 10, true) as $what => $n) {
            $md[] = "- $n × $what";
        }
        $unknown = [];
        \ksort($this->unknownWrites);
        foreach ($this->unknownWrites as $how => [$answered, $done]) {
            $unknown[] = "$how: $answered ($done done)";
        }
        $md[] = '';
        $md[] = \sprintf(
            '**Ledger:** %s numbers checked against the database (%s rows must exist, %s must not): **%d lost or misreported writes**, %d answers no rule allows, %d writes answered 504 outcome unknown (honest: unchecked). Writes whose answer did not tell, with what the database shows: %s.',
            \number_format($this->rowsPresent + $this->rowsAbsent), \number_format($this->rowsPresent), \number_format($this->rowsAbsent),
            \count($this->mismatches), \count($this->ledger->unexpected()), \count($this->ledger->unknown()), $unknown === [] ? 'none' : \implode(', ', $unknown),
        );
        \ksort($this->deaths);
        $md[] = '';
        $md[] = \sprintf(
            '**Worker deaths** logged by the master (%.2f per second): %s; fatal requests answered 500: %s; workers that logged the requests they held when they ended: %d, naming %d answered 503 (clients saw %d from the server itself). Unexpected deaths: %s.',
            \array_sum($this->deaths) / \max(1.0, $this->duration),
            $this->deaths === [] ? 'none' : \implode(', ', \array_map(static fn (int $code, int $n): string => $code < 0 ? "$n killed by signal " . -$code : "$n with exit code $code", \array_keys($this->deaths), $this->deaths)),
            \implode(', ', \array_map(static fn (string $path, int $n): string => "$n `$path`", \array_keys($this->fatal500), $this->fatal500)),
            $this->abruptEnds, $this->namedUnavailable, $this->serverUnavailable,
            $this->unexpectedDeaths() === [] ? 'none' : \implode('; ', $this->unexpectedDeaths()),
        );
        [$workerSlope, $workerFirst, $workerLast, $workerMax] = $this->slope(fn (array $s): ?float => $s['workers'] === [] ? null : \array_sum(\array_column($s['workers'], 'rss')) / \count($s['workers']));
        [$masterSlope, $masterFirst, $masterLast] = $this->slope(static fn (array $s): ?float => $s['master'] > 0 ? (float) $s['master'] : null);
        $md[] = '';
        $md[] = \sprintf(
            '**RSS** (VmRSS from /proc, %d samples): workers (mean of the live ones) %.1f MB at the start, %.1f MB at the end, at most %.1f MB, slope **%+.2f MB per 10 min**; the master %.1f → %.1f MB, slope **%+.2f MB per 10 min**. Workers are replaced by every fatal request and every reload, so a worker\'s own growth shows only between them; the master lives through the whole run.',
            \count($this->samples), $workerFirst, $workerLast, $workerMax, $workerSlope, $masterFirst, $masterLast, $masterSlope,
        );
        $sorted = $this->probeMs;
        \sort($sorted);
        $at = static fn (float $p): float => $sorted === [] ? 0.0 : $sorted[(int) \min(\count($sorted) - 1, \max(0, \ceil($p / 100 * \count($sorted)) - 1))];
        $md[] = '';
        $md[] = \sprintf('**Fresh client** (a new connection and `GET /` every 100 ms, %s probes): longest wait from sending to the answer **%.0f ms**; p50 %.1f ms, p99 %.1f ms, p99.9 %.1f ms.', \number_format(\count($sorted)), $at(100), $at(50), $at(99), $at(99.9));
        $md[] = '';
        $md[] = 'Faults: ' . \implode('; ', \array_map(static fn (array $e): string => "{$e['t']} s {$e['event']}", $this->events)) . '.';
        $md[] = \sprintf('The master ran to the end and its stop (SIGTERM) ended with code %d.', $this->stopCode);
        $failures = $this->failures();
        $md[] = '';
        $md[] = $failures === [] ? '**Result: ok.**' : "**Result: FAILED** (" . \count($failures) . " failures; the full list: the run's stderr) —\n\n" . self::grouped($failures);
        $md[] = '';
        $md[] = 'Other warnings and errors in the server\'s log (numbers replaced by N): ' . $this->logDigest();

        return \implode("\n", $md) . "\n";
    }

    /** @param array<string, mixed> $r */
    private function add(array $r): void
    {
        $class = (string) $r['c'];
        $status = (int) $r['s'];
        $this->classes[$class] ??= ['requests' => 0, 'ok' => 0, 'dying' => 0, 'unknown' => 0, 'database' => 0, 'idle' => 0, 'none' => 0, 'other' => 0];
        $c = &$this->classes[$class];
        $c['requests']++;
        $error = (string) ($r['e'] ?? '');
        $shown = $class === 'crud' ? '' : (string) $r['p'];
        if ($status === 0 && \preg_match('~^the connection closed.*\(reused connection(, 0 bytes received)?\)$~', $error) === 1) {
            $c['idle']++;
        } elseif ($status === 0) {
            $c['none']++;
            $this->other("$class {$r['m']} $shown: no answer ($error)");
        } elseif ($status === 504 && \str_contains((string) ($r['b'] ?? $r['body'] ?? ''), '"outcome":"unknown"')) {
            // A write in a dying worker's hands, or one whose database did not answer: the
            // server says it does not know (docs/HTTP.md, "Three outcomes"); the ledger counts it.
            $c['unknown']++;
        } elseif ($status === 503 && ($r['k'] === 'server' || $class === 'probe')) {
            $c['dying']++;
            $this->serverUnavailable++;
        } elseif ($status === 503 && $r['k'] === 'app' && \in_array($class, ['crud', 'sleep'], true)) {
            $c['database']++;
        } elseif (\in_array($status, self::OK[$class], true) && $error === '') {
            $c['ok']++;
            if ($class === 'fatal') {
                $this->fatal500[(string) $r['p']] = ($this->fatal500[(string) $r['p']] ?? 0) + 1;
            }
        } else {
            $c['other']++;
            $this->other(\sprintf('%s %s %s: %d %s%s', $class, $r['m'], $shown, $status, \substr((string) ($r['b'] ?? $r['body'] ?? ''), 0, 100), $error === '' ? '' : " ($error)"));
        }
        unset($c);
        $untold = $status === 0 || ($status === 503 && $r['k'] === 'server');
        if ($class === 'crud' && !($untold && $r['m'] === 'GET')) {
            // A read that told nothing promises nothing; a write whose answer did not tell is
            // checked apart (checkLedger()).
            $this->ledger->record([
                'method' => (string) $r['m'], 'number' => (string) $r['p'], 'id' => $r['id'], 'title' => (string) $r['title'],
                'status' => $status, 'body' => (string) $r['body'], 'unknown' => $untold,
            ]);
        } elseif ($class === 'probe') {
            $this->probeMs[] = (float) $r['ms'];
        }
    }

    private function other(string $what): void
    {
        $key = \preg_replace('~\d+~', 'N', $what) ?? $what;
        $this->others[$key] = ($this->others[$key] ?? 0) + 1;
        \arsort($this->others);
    }

    /** @return list<string> */
    private function unexpectedDeaths(): array
    {
        $lines = [];
        foreach ($this->deaths as $code => $n) {
            $path = \array_search($code, self::EXIT_CODE, true);
            if ($path === false) {
                $lines[] = $code < 0 ? "$n killed by signal " . -$code : "$n exited with code $code";
            } elseif ($n > ($this->fatal500[$path] ?? 0)) {
                // A draining worker's end is expected and not logged, so fewer deaths than 500s is fine.
                $lines[] = \sprintf('%d exited with code %d, but only %d `%s` were answered 500', $n, $code, $this->fatal500[$path] ?? 0, $path);
            }
        }

        return $lines;
    }

    /**
     * Least-squares slope of $value over the samples, in MB per 10 minutes, with the first, last
     * and largest value in MB.
     *
     * @param \Closure(array{t: float, master: int, workers: array<int, array{rss: int, uptime: float}>}): ?float $value kB
     * @return array{float, float, float, float}
     */
    private function slope(\Closure $value): array
    {
        $points = [];
        foreach ($this->samples as $sample) {
            $kb = $value($sample);
            if ($kb !== null) {
                $points[] = [$sample['t'], $kb / 1024];
            }
        }
        $n = \count($points);
        if ($n < 2) {
            return [0.0, $points[0][1] ?? 0.0, $points[0][1] ?? 0.0, $points[0][1] ?? 0.0];
        }
        $mx = \array_sum(\array_column($points, 0)) / $n;
        $my = \array_sum(\array_column($points, 1)) / $n;
        $sxy = $sxx = 0.0;
        foreach ($points as [$x, $y]) {
            $sxy += ($x - $mx) * ($y - $my);
            $sxx += ($x - $mx) ** 2;
        }

        return [$sxx > 0 ? 600 * $sxy / $sxx : 0.0, $points[0][1], $points[$n - 1][1], \max(\array_column($points, 1))];
    }

    /** @param list<string> $failures one line per kind, with its count and a first example */
    private static function grouped(array $failures): string
    {
        $groups = [];
        foreach ($failures as $failure) {
            $kind = \preg_replace(['~S[0-9a-f]{6}-[a-z]+\d+-\d+~', '~\(id \d+\)~', '~"[^"]*"~'], ['NUMBER', '(id N)', '"…"'], $failure) ?? $failure;
            $groups[$kind] ??= [0, $failure];
            $groups[$kind][0]++;
        }
        \uasort($groups, static fn (array $a, array $b): int => $b[0] <=> $a[0]);
        $lines = [];
        foreach ($groups as $kind => [$n, $example]) {
            $lines[] = $n === 1 ? "- $example" : "- $n × $kind (e.g. $example)";
        }

        return \implode("\n", $lines);
    }

    private function logDigest(): string
    {
        $counts = [];
        foreach (\explode("\n", $this->log) as $line) {
            if (!\preg_match('~\[(warning|error|critical|alert|emergency)\] (.*)$~', $line, $m)
                || \preg_match('~^(Worker \d+ (exited with code|was killed)|The process ended while handling)~', $m[2]) === 1) {
                continue;
            }
            $message = \preg_replace(['~\(request [^)]*\)~', '~application_name=\w+~', '~\d+(\.\d+)?~'], ['(request ID)', 'application_name=…', 'N'], $m[2]) ?? $m[2];
            $key = $m[1] . ': ' . \substr($message, 0, 220);
            $counts[$key] = ($counts[$key] ?? 0) + 1;
        }
        \arsort($counts);
        if ($counts === []) {
            return 'none.';
        }
        $lines = [];
        foreach (\array_slice($counts, 0, 12, true) as $what => $n) {
            $lines[] = "- $n × `" . \str_replace('`', "'", $what) . '`';
        }

        return "\n\n" . \implode("\n", $lines);
    }
}
