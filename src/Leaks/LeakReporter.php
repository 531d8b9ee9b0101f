<?php

declare(strict_types=1);

namespace Bobbin\Leaks;

use Bobbin\Metrics\Collector;
use Bobbin\Metrics\MetricFamily;
use Bobbin\Metrics\MetricType;
use Psr\Log\LoggerInterface;

/**
 * Logs each leak once — the first request that left it names it — and counts every one by kind
 * (bobbin_state_leaks_total): the same static changed by every request is one warning, not one
 * per request.
 */
final class LeakReporter implements Collector
{
    /** @var array<string, true> kind and subject already logged */
    private array $logged = [];
    /** @var array<string, int> by kind */
    private array $counts = [];

    public function __construct(private readonly LoggerInterface $logger)
    {
    }

    /** @param list<Leak> $leaks */
    public function report(array $leaks, string $method, string $target, string $requestId): void
    {
        foreach ($leaks as $leak) {
            $this->counts[$leak->kind->value] = ($this->counts[$leak->kind->value] ?? 0) + 1;
            $key = $leak->kind->value . ' ' . $leak->subject;
            if (isset($this->logged[$key])) {
                continue;
            }
            $this->logged[$key] = true;
            $this->logger->warning('State leak: {method} {target} (request {id}) left {subject}{detail}: {consequence}', [
                'method' => $method,
                'target' => $target,
                'id' => $requestId,
                'subject' => $leak->subject,
                'detail' => $leak->detail === '' ? '' : ' (' . $leak->detail . ')',
                'consequence' => $leak->kind->consequence(),
                'leak' => $leak->kind->value,
            ]);
        }
    }

    public function collect(): iterable
    {
        $samples = [];
        foreach ($this->counts as $kind => $count) {
            $samples[] = [['kind' => $kind], (float) $count];
        }
        yield new MetricFamily('bobbin_state_leaks_total', MetricType::Counter, 'State a request left for the next one (--detect-leaks), by kind; each distinct leak is logged once', $samples);
    }
}
