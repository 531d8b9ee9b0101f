<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Http;

/** LegacyIsolationTest's tests with each request's script in a process forked from the worker (--legacy-runner=fork). */
final class LegacyIsolationUnderForkTest extends LegacyIsolationTest
{
    protected const RUNNER = 'fork';
}
