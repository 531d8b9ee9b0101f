<?php

declare(strict_types=1);

namespace Bobbin\Metrics;

/**
 * The collectors of one process. A server, a pool or an application adds its collector once;
 * collect() asks them all (on the master's request, for a scrape). Collecting costs the
 * collectors' work and nothing else: between scrapes the figures are their own counters.
 */
final class Registry
{
    private static ?self $default = null;

    /** @var array<int, Collector|\WeakReference<Collector>> */
    private array $collectors = [];

    /** The process's registry. */
    public static function default(): self
    {
        return self::$default ??= new self();
    }

    public function add(Collector $collector): void
    {
        $this->collectors[\spl_object_id($collector)] = $collector;
    }

    /** Adds a collector for as long as something else keeps it (a pool that may be dropped). */
    public function addWeakly(Collector $collector): void
    {
        $this->collectors[\spl_object_id($collector)] = \WeakReference::create($collector);
    }

    public function remove(Collector $collector): void
    {
        unset($this->collectors[\spl_object_id($collector)]);
    }

    /** @return list<MetricFamily> */
    public function collect(): array
    {
        $families = [];
        foreach ($this->collectors as $id => $entry) {
            $collector = $entry instanceof \WeakReference ? $entry->get() : $entry;
            if ($collector === null) {
                unset($this->collectors[$id]);
                continue;
            }
            foreach ($collector->collect() as $family) {
                $families[] = $family;
            }
        }

        return $families;
    }
}
