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

    public function testAWorkerThatDiedServingARequestIsAFailedRequestNotABootFailure(): void
    {
        $policy = new RestartPolicy();
        for ($i = 0; $i < 3; $i++) {
            $policy->workerDied(0.1, true);
        }

        // A fatal error in a request a tenth of a second after the fork: replaced at once, and
        // the count of quick deaths starts again.
        for ($i = 0; $i < 50; $i++) {
            self::assertSame(0.0, $policy->workerDied(0.1, true, served: true));
        }
        self::assertSame(0, $policy->quickDeathsInARow());
        self::assertFalse($policy->inCrashLoop());
    }

    public function testTheFifthQuickDeathInARowIsACrashLoopThatBacksOffAndNeverGivesUp(): void
    {
        $policy = new RestartPolicy();
        for ($i = 0; $i < 4; $i++) {
            $policy->workerDied(0.1, false);
            self::assertFalse($policy->inCrashLoop());
        }

        $delays = [];
        for ($i = 0; $i < 20; $i++) {
            $delays[] = $policy->workerDied(0.1, false);
            self::assertTrue($policy->inCrashLoop());
        }

        self::assertSame(1.6, $delays[0]);
        self::assertSame(5.0, \max($delays), 'The back-off is capped');
        self::assertSame(5.0, $delays[19], 'A crash loop keeps retrying at the cap');
    }

    public function testAWorkerThatServesEndsACrashLoop(): void
    {
        $policy = new RestartPolicy();
        for ($i = 0; $i < 6; $i++) {
            $policy->workerDied(0.1, false);
        }
        self::assertTrue($policy->inCrashLoop());

        $policy->workerServed();

        self::assertFalse($policy->inCrashLoop());
        self::assertSame(0.1, $policy->workerDied(0.1, false));
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
