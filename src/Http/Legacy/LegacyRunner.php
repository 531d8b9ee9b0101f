<?php

declare(strict_types=1);

namespace Bobbin\Http\Legacy;

/**
 * Where `--legacy` runs each request's script (`--legacy-runner`; docs/LEGACY.md).
 *
 * @internal read by bin/bobbin serve's options
 */
enum LegacyRunner: string
{
    /** A child of the legacy pool: PHP's own request start-up and shut-down around each script, as PHP-FPM. */
    case Pool = 'pool';
    /** A fresh process forked from the worker for each request: no build step, more CPU per request. */
    case Fork = 'fork';
}
