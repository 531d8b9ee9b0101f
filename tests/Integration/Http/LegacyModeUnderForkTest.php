<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Http;

/** LegacyModeTest's tests with each request's script in a process forked from the worker (--legacy-runner=fork). */
final class LegacyModeUnderForkTest extends LegacyModeTest
{
    protected const RUNNER = 'fork';
}
