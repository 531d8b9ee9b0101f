<?php

declare(strict_types=1);

namespace Bobbin\Http;

use Bobbin\Metrics\Collector;
use Bobbin\Metrics\Histogram;
use Bobbin\Metrics\MetricFamily;
use Bobbin\Metrics\MetricType;
use Closure;

/**
 * One server's figures, counted as requests go (an array increment per request) and turned
 * into metric families when collected: requests by method and status class, their durations
 * (from when their bytes were found ready, so time queued behind other work counts), bytes in
 * and out, rejected requests by status, connections and why the server closed them.
 */
final class ServerMetrics implements Collector
{
    private const METHODS = ['GET' => 'GET', 'HEAD' => 'HEAD', 'POST' => 'POST', 'PUT' => 'PUT', 'PATCH' => 'PATCH', 'DELETE' => 'DELETE', 'OPTIONS' => 'OPTIONS'];

    /** @var array<string, array<int, int>> method => status => requests (collect() folds the statuses into classes) */
    private array $requests = [];
    public readonly Histogram $durations;
    // Untyped, typed by @var: added to per request (docs/ASYNC.md, Rules).
    /** @var int */
    public $receivedBytes = 0;
    /** @var int */
    public $sentBytes = 0;
    /** @var array<int, int> status => requests rejected by the parser or a limit */
    private array $rejected = [];

    /** @param Closure(): array{connections: int, inFlight: int} $now the server's current figures */
    public function __construct(
        private readonly ConnectionStatistics $connections,
        private readonly Closure $now,
    ) {
        $this->durations = new Histogram();
    }

    public function requestDone(string $method, int $status, float $seconds): void
    {
        // Counted by status, folded into status classes when collected: a plain increment here.
        $method = self::METHODS[$method] ?? 'other';
        if (isset($this->requests[$method][$status])) {
            $this->requests[$method][$status]++;
        } else {
            $this->requests[$method][$status] = 1;
        }
        $this->durations->observe($seconds);
    }

    public function rejected(int $status): void
    {
        $this->rejected[$status] = ($this->rejected[$status] ?? 0) + 1;
    }

    public function collect(): iterable
    {
        $requests = [];
        foreach ($this->requests as $method => $statuses) {
            $byClass = [];
            foreach ($statuses as $status => $count) {
                $class = match (true) {
                    $status >= 500 => '5xx',
                    $status >= 400 => '4xx',
                    $status >= 300 => '3xx',
                    $status >= 200 => '2xx',
                    default => '1xx',
                };
                $byClass[$class] = ($byClass[$class] ?? 0) + $count;
            }
            foreach ($byClass as $class => $count) {
                $requests[] = [['method' => $method, 'status' => $class], (float) $count];
            }
        }
        yield new MetricFamily('bobbin_http_requests_total', MetricType::Counter, 'HTTP requests answered, by method and status class', $requests);
        yield new MetricFamily('bobbin_http_request_duration_seconds', MetricType::Histogram, 'Time from a request\'s bytes found ready to its response written', [[[], $this->durations->value()]]);
        $now = ($this->now)();
        yield new MetricFamily('bobbin_http_requests_in_flight', MetricType::Gauge, 'Requests being read, handled or answered', [[[], (float) $now['inFlight']]]);
        yield new MetricFamily('bobbin_http_connections_open', MetricType::Gauge, 'Open client connections', [[[], (float) $now['connections']]]);
        yield new MetricFamily('bobbin_http_connections_accepted_total', MetricType::Counter, 'Client connections accepted', [[[], (float) $this->connections->accepted]]);
        yield new MetricFamily('bobbin_http_received_bytes_total', MetricType::Counter, 'Bytes read from clients', [[[], (float) $this->receivedBytes]]);
        yield new MetricFamily('bobbin_http_sent_bytes_total', MetricType::Counter, 'Bytes written to clients', [[[], (float) $this->sentBytes]]);
        $rejected = [];
        foreach ($this->rejected as $status => $count) {
            $rejected[] = [['status' => (string) $status], (float) $count];
        }
        yield new MetricFamily('bobbin_http_rejected_requests_total', MetricType::Counter, 'Requests refused by the parser or a limit (malformed, too large, too slow), by status', $rejected);
        $dropped = [];
        foreach ($this->connections->droppedByReason() as $reason => $count) {
            $dropped[] = [['reason' => $reason], (float) $count];
        }
        yield new MetricFamily('bobbin_http_connections_dropped_total', MetricType::Counter, 'Connections the server closed: timeouts, slow clients, room at the limit', $dropped);
        yield new MetricFamily('bobbin_http_connection_limit_reached_total', MetricType::Counter, 'Accepts that found the connection limit reached', [[[], (float) $this->connections->limitReached]]);
    }
}
