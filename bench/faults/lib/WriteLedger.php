<?php

declare(strict_types=1);

namespace Bobbin\Bench\Faults;

/**
 * What the answers of a CRUD run promise about the database, checked row by row afterwards.
 * Pure: fed the request records of each client in order, then the rows found.
 *
 * - POST 201: the row exists (until a DELETE answered 204); POST 503: no row has its number.
 * - DELETE 204: the row is gone; DELETE 503: the row is still there.
 * - PUT 200: its title is the one stored (and the one a later GET shows); PUT 503: the title
 *   before it is.
 * - GET 200 shows the title the last write answered 2xx set; GET/PUT/DELETE 404 on a row a 2xx
 *   created is a lost write.
 * - 504 with `"outcome":"unknown"`: the server says it does not know whether the write took
 *   effect (docs/HTTP.md, "Three outcomes"): an honest answer, not a failure of the run; its
 *   number is not checked, and the run counts such answers (unknown()).
 * A request answered with anything else, or not at all, is unexpected: its number is then not
 * checked (the outcome is unknown), and the run fails.
 * A record marked `unknown` (the caller knows the answer does not tell, e.g. the server's own
 * 503 for a request in the hands of a worker that died) is counted and its number not checked;
 * unknownOutcomes() lists them so that the caller can tell what became of each.
 */
final class WriteLedger
{
    /** @var array<string, array{present: bool, title: string, why: string, titleWhy: string}> */
    private array $expected = [];
    /** @var array<string, true> numbers whose outcome no answer tells */
    private array $unknown = [];
    /** @var list<string> */
    private array $mismatches = [];
    /** @var list<string> */
    private array $unexpected = [];
    /** @var list<string> answers that said the outcome is unknown */
    private array $unknownAnswers = [];
    /** @var array<string, array<int, int>> method => status => count */
    private array $counts = [];
    /** @var list<array{method: string, number: string, title: string, status: int}> */
    private array $unknownOutcomes = [];

    /**
     * @param array{method: string, number: string, id: int|null, title: string, status: int, body: string, unknown?: bool} $record
     *        title: the one sent (POST, PUT) or nothing; body: the response body
     */
    public function record(array $record): void
    {
        ['method' => $method, 'number' => $number, 'status' => $status] = $record;
        $this->counts[$method][$status] = ($this->counts[$method][$status] ?? 0) + 1;
        if (($record['unknown'] ?? false) === true) {
            $this->unknown[$number] = true;
            $this->unknownOutcomes[] = ['method' => $method, 'number' => $number, 'title' => $record['title'], 'status' => $status];

            return;
        }
        $what = \sprintf('%s %s (id %s)', $method, $number, $record['id'] ?? '-');
        $known = $this->expected[$number] ?? null;
        if ($status === 504 && (\json_decode($record['body'], true)['outcome'] ?? null) === 'unknown') {
            $this->unknownAnswers[] = "$what answered 504, outcome unknown";
            $this->unknown[$number] = true;

            return;
        }
        if (!\in_array($status, [200, 201, 204, 503], true)) {
            if ($status === 404 && $known !== null && $known['present']) {
                $this->mismatches[] = "$what answered 404: the row {$known['why']} promised is not there";
            } else {
                $this->unexpected[] = $status === 0 ? "$what got no answer" : "$what answered $status: " . \substr($record['body'], 0, 200);
            }
            $this->unknown[$number] = true;

            return;
        }
        if ($status === 503) {
            if ($method === 'POST') {
                $this->expected[$number] = ['present' => false, 'title' => '', 'why' => 'POST 503', 'titleWhy' => ''];
            } elseif ($known !== null && $method !== 'GET') {
                // Nothing changed: the expectation stands, now also on behalf of this answer.
                $this->expected[$number][$method === 'PUT' ? 'titleWhy' : 'why'] = "$method 503";
            }

            return;
        }
        match ($method) {
            'POST' => $this->expected[$number] = ['present' => true, 'title' => $record['title'], 'why' => 'POST 201', 'titleWhy' => 'POST 201'],
            'PUT' => $this->expected[$number] = ['title' => $record['title'], 'titleWhy' => 'PUT 200'] + ($known ?? ['present' => true, 'why' => 'PUT 200']),
            'DELETE' => $this->expected[$number] = ['present' => false, 'why' => 'DELETE 204'] + ($known ?? ['title' => '', 'titleWhy' => '']),
            default => $this->checkRead($what, $number, $record['body']),
        };
    }

    /**
     * @param array<string, string> $titles number => stored title, for every row of the run
     * @return list<string> every promise the database breaks
     */
    public function check(array $titles): array
    {
        $mismatches = $this->mismatches;
        foreach ($this->expected as $number => $expected) {
            if (isset($this->unknown[$number])) {
                continue;
            }
            $stored = $titles[$number] ?? null;
            if ($expected['present'] && $stored === null) {
                $mismatches[] = "$number: answered {$expected['why']}, but there is no row";
            } elseif (!$expected['present'] && $stored !== null) {
                $mismatches[] = "$number: answered {$expected['why']}, but the row exists";
            } elseif ($stored !== null && $stored !== $expected['title']) {
                $mismatches[] = "$number: answered {$expected['titleWhy']}, but the title is \"$stored\", not \"{$expected['title']}\"";
            }
        }

        return $mismatches;
    }

    /** @return list<string> answers other than 200, 201, 204 and 503 (or none at all) */
    public function unexpected(): array
    {
        return $this->unexpected;
    }

    /** @return list<string> the answers that said their outcome is unknown (504) */
    public function unknown(): array
    {
        return $this->unknownAnswers;
    }

    /** @return list<array{method: string, number: string, title: string, status: int}> the requests marked `unknown`, in order */
    public function unknownOutcomes(): array
    {
        return $this->unknownOutcomes;
    }

    /** @return array<string, array<int, int>> method => status => count */
    public function counts(): array
    {
        return $this->counts;
    }

    /** @return array{int, int} numbers expected present, expected absent (those checked) */
    public function expectations(): array
    {
        $present = $absent = 0;
        foreach ($this->expected as $number => $expected) {
            if (!isset($this->unknown[$number])) {
                $expected['present'] ? $present++ : $absent++;
            }
        }

        return [$present, $absent];
    }

    private function checkRead(string $what, string $number, string $body): void
    {
        if (isset($this->unknown[$number])) {
            return; // an earlier write's outcome is unknown: either title is the truth
        }
        $expected = $this->expected[$number] ?? null;
        $shown = \json_decode($body, true);
        $title = \is_array($shown) ? ($shown['title'] ?? null) : null;
        if ($expected !== null && $expected['present'] && $title !== $expected['title']) {
            $this->mismatches[] = \sprintf('%s showed the title "%s", not "%s" (%s)', $what, (string) $title, $expected['title'], $expected['titleWhy']);
        } elseif ($expected !== null && !$expected['present']) {
            $this->mismatches[] = "$what answered 200 for a row {$expected['why']} says is not there";
        }
    }
}
