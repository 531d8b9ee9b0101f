<?php

declare(strict_types=1);

namespace Bobbin\Process\Admin;

use Bobbin\Metrics\MetricFamily;
use Bobbin\Metrics\PrometheusText;
use Bobbin\Metrics\WorkerFamilies;
use Closure;

/**
 * What the master's admin listener serves:
 *
 *   /metrics       Prometheus text (OpenMetrics when the Accept header asks), every worker's
 *                  families merged with the ended workers' counters and histograms
 *                  (WorkerFamilies) plus the master's own
 *   /status.json   StatusReport
 *   /status        StatusPage, which reads /status.json every second
 *   /health, /ready Readiness, from the master's own record (no token needed)
 *
 * Worker figures are asked for on each request (a "collect" line to every worker; answers
 * awaited up to COLLECT_SECONDS), so they are as fresh as the scrape; a worker that does not answer
 * in time is shown with the figures it last sent. The master calls tick() on every turn of its
 * loop, answered() with each worker's reply (and its final report as it ends, id 0), and
 * workerEnded() when it has reaped one: so no total goes backwards as workers come and go.
 */
final class AdminService
{
    private const COLLECT_SECONDS = 0.5;

    private ?MetricsCollection $collection = null;
    private int $nextId = 1;
    private readonly WorkerFamilies $families;

    /**
     * @param Closure(int): list<int> $askWorkers sends a collect with this id to every worker; the pids asked
     * @param Closure(): array{array<string, mixed>, list<array<string, mixed>>} $masterStatus the master's record and its workers'
     */
    public function __construct(
        private readonly AdminListener $listener,
        private readonly MasterMetrics $masterMetrics,
        private readonly Closure $askWorkers,
        private readonly Closure $masterStatus,
        private readonly AdminAccess $access,
    ) {
        $this->families = new WorkerFamilies();
    }

    /** @return list<resource> */
    public function streams(): array
    {
        return $this->listener->streams();
    }

    public function address(): string
    {
        return $this->listener->address;
    }

    /** Who may read it, for the start-up log line. */
    public function access(): AdminAccess
    {
        return $this->access;
    }

    public function tick(float $now): void
    {
        foreach ($this->listener->poll($now) as $request) {
            $this->route($request, $now);
        }
        if ($this->collection !== null && $this->collection->isDone($now)) {
            $collection = $this->collection;
            $this->collection = null;
            $this->answer($collection);
        }
    }

    /**
     * A worker's figures: the answer to the collect $id, or (id 0) the final report it sends as
     * it ends. Either is its latest, even when late for its scrape.
     *
     * @param list<MetricFamily> $families
     */
    public function answered(int $pid, int $id, array $families): void
    {
        $this->families->reported($pid, $families);
        if ($this->collection !== null && $this->collection->id === $id) {
            $this->collection->answered($pid);
        }
    }

    /** The master reaped this worker (after reading what it last sent): its counters stay in the totals. */
    public function workerEnded(int $pid): void
    {
        $this->families->ended($pid);
        $this->collection?->answered($pid); // nothing more will come: no reason to wait for it
    }

    public function close(): void
    {
        $this->listener->close();
    }

    /** In a forked worker: the admin sockets are the master's. */
    public function forget(): void
    {
        $this->listener->forget();
    }

    private function route(AdminRequest $request, float $now): void
    {
        if ($request->path === '/health' || $request->path === '/ready') {
            $this->probe($request);

            return;
        }
        if (!$this->access->allows($request->authorization)) {
            $request->respond(401, 'text/plain; charset=utf-8', "A bearer token is required (Authorization: Bearer TOKEN)\n", "WWW-Authenticate: Bearer\r\n");

            return;
        }
        if ($request->method !== 'GET' && $request->method !== 'HEAD') {
            $request->respond(405, 'text/plain; charset=utf-8', "GET only\n");

            return;
        }
        switch ($request->path) {
            case '/metrics':
            case '/status.json':
                if ($this->collection === null) {
                    $id = $this->nextId++;
                    $this->collection = new MetricsCollection($id, ($this->askWorkers)($id), $now + self::COLLECT_SECONDS);
                }
                $this->collection->waiting[] = $request;
                break;
            case '/':
            case '/status':
                $request->respond(200, 'text/html; charset=utf-8', StatusPage::html());
                break;
            default:
                $request->respond(404, 'text/plain; charset=utf-8', "Not found: /metrics, /status, /status.json, /health, /ready\n");
        }
    }

    /**
     * /health and /ready answer without the token: load balancers' health checks (AWS, GCP) cannot
     * send one, and they tell nothing beyond what probing the application's port tells
     * (docs/OBSERVABILITY.md). The listener's address rule still applies.
     */
    private function probe(AdminRequest $request): void
    {
        if ($request->method !== 'GET' && $request->method !== 'HEAD') {
            $request->respond(405, 'text/plain; charset=utf-8', "GET only\n");

            return;
        }
        if ($request->path === '/health') {
            [$status, $body] = Readiness::health();
        } else {
            [$master, $workers] = ($this->masterStatus)();
            [$status, $body] = Readiness::ready($master, $workers);
        }
        $request->respond($status, 'text/plain; charset=utf-8', $body);
    }

    private function answer(MetricsCollection $collection): void
    {
        [$master, $workers] = ($this->masterStatus)();
        $this->masterMetrics->workersByState = [];
        foreach ($workers as $worker) {
            $state = (string) ($worker['state'] ?? 'unknown');
            $this->masterMetrics->workersByState[$state] = ($this->masterMetrics->workersByState[$state] ?? 0) + 1;
        }
        $merged = $this->families->merged();
        foreach ($collection->waiting as $request) {
            if ($request->path === '/metrics') {
                $open = PrometheusText::wantsOpenMetrics($request->accept);
                $request->respond(
                    200,
                    $open ? PrometheusText::OPENMETRICS_CONTENT_TYPE : PrometheusText::CONTENT_TYPE,
                    PrometheusText::render([...$merged, ...$this->masterMetrics->collect()], $open),
                );
            } else {
                $report = StatusReport::build(\microtime(true), $master, $workers, $merged);
                $request->respond(200, 'application/json', (string) \json_encode($report, \JSON_UNESCAPED_SLASHES | \JSON_PRESERVE_ZERO_FRACTION));
            }
        }
    }
}
