<?php

declare(strict_types=1);

namespace Bobbin\Metrics;

/** Something that knows figures of its own and turns them into metric families when asked. */
interface Collector
{
    /** @return iterable<MetricFamily> */
    public function collect(): iterable;
}
