<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Process;

use Bobbin\Jobs\JobsConfig;
use Bobbin\Jobs\Security\JobKeys;
use Bobbin\Process\JobPoolConfig;
use Bobbin\Process\RecycleLimits;
use PHPUnit\Framework\TestCase;

/** What a late-started supervisor (bin/bobbin job-master) is told of the pool rebuilds the same pool, the keys aside. */
final class JobPoolConfigTransferTest extends TestCase
{
    public function testThePoolSurvivesTheTripThroughJson(): void
    {
        $config = JobPoolConfig::create(3, '', '', new JobsConfig(7, 2.5, 30.0, 4096), new RecycleLimits(100, 64 << 20), 12.0, 0.5, 5, null, true);
        $keys = new JobKeys(\str_repeat('k', 32));

        $copy = JobPoolConfig::fromTransfer(\json_decode(\json_encode($config->toTransfer(), \JSON_THROW_ON_ERROR), true), $keys);

        self::assertEquals($config->withKeys($keys), $copy);
        self::assertTrue($copy->ownsDirectory);
        self::assertSame($keys, $copy->keys);
    }

    public function testAnIncompleteOneIsRefused(): void
    {
        $this->expectException(\InvalidArgumentException::class);

        JobPoolConfig::fromTransfer(['workers' => 2], new JobKeys(\str_repeat('k', 32)));
    }
}
