<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Http;

/** LegacyFailureParityTest's tests with each request's script in a process forked from the worker (--legacy-runner=fork). */
final class LegacyFailureParityUnderForkTest extends LegacyFailureParityTest
{
    protected const RUNNER = 'fork';
}
