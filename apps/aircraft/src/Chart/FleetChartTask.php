<?php

declare(strict_types=1);

namespace Bobbin\Apps\Aircraft\Chart;

use Bobbin\Jobs\Task;

/**
 * Draws the fleet chart where Jobs sends it: in a job worker on Bobbin, in-process under
 * PHP-FPM. Carries only the counts and the size; returns the PNG's bytes.
 */
final class FleetChartTask implements Task
{
    /** @param array<int, int> $countsByYear */
    public function __construct(private readonly array $countsByYear, private readonly int $width, private readonly int $height)
    {
    }

    public function run(): string
    {
        return (new FleetByYearChart($this->countsByYear, $this->width, $this->height))->png();
    }
}
