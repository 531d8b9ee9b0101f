<?php

declare(strict_types=1);

namespace Bobbin\Bench\Experiment;

use Bobbin\Bench\Context;
use Bobbin\Bench\Options;

/** One comparison bench/run can run by name. */
interface Experiment
{
    public function name(): string;

    /** One line for --list and the report. */
    public function title(): string;

    /** Rough wall time, for the progress display. */
    public function estimateSeconds(Options $options): float;

    public function run(Context $context): void;
}
