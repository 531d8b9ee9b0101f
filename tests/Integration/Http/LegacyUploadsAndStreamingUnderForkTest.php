<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Http;

/** LegacyUploadsAndStreamingTest's tests with each request's script in a process forked from the worker (--legacy-runner=fork). */
final class LegacyUploadsAndStreamingUnderForkTest extends LegacyUploadsAndStreamingTest
{
    protected const RUNNER = 'fork';
}
