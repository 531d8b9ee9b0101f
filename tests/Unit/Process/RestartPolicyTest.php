<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Process;

use Bobbin\Process\RestartPolicy;
use PHPUnit\Framework\TestCase;

final class RestartPolicyTest extends TestCase
{
    public function testAWorkerThatLivedLongIsReplacedAtOnce(): void
    {
        $policy = new RestartPolicy();

        self::assertSame(0.0, $policy->workerDied(3600.0, true));
        self::assertSame(0, $policy->quickDeathsInARow());
    }

    public function testQuickDeathsInARowDoubleTheDelayFromATenthOfASecond(): void
    {
        $policy = new RestartPolicy(crashLoopDeaths: 10);

        $delays = [];
        for ($i = 0; $i < 7; $i++) {
            $delays[] = $policy->workerDied(0.5, true);
        }

        self::assertSame([0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 5.0], $delays);
    }

    public function testAWorkerThatNeverBecameReadyCountsAsAQuickDeathHoweverLongItTook(): void
    {
        $policy = new RestartPolicy();

        self::assertSame(0.1, $policy->workerDied(30.0, false));
        self::assertSame(1, $policy->quickDeathsInARow());
    }

    public function testTheFifthQuickDeathInARowIsACrashLoop(): void
    {
        $policy = new RestartPolicy();
        for ($i = 0; $i < 4; $i++) {
            self::assertNotNull($policy->workerDied(0.1, false));
        }

        self::assertNull($policy->workerDied(0.1, false));
    }

    public function testALongLifeBetweenQuickDeathsStartsTheCountAgain(): void
    {
        $policy = new RestartPolicy();
        for ($i = 0; $i < 4; $i++) {
            $policy->workerDied(0.1, true);
        }

        self::assertSame(0.0, $policy->workerDied(10.0, true));
        self::assertSame(0.1, $policy->workerDied(0.1, true));
    }
}
