<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async;

use Bobbin\Async\Async;
use Bobbin\Async\CancellationSource;
use Bobbin\Async\CancelledException;
use Bobbin\Async\SharedAttempt;
use Bobbin\Async\TimeoutCancellation;
use Bobbin\Async\TimeoutException;

final class SharedAttemptTest extends AsyncTestCase
{
    public function testCallersArrivingWhileItRunsShareOneAttempt(): void
    {
        /** @var SharedAttempt<string> $shared */
        $shared = new SharedAttempt();
        $runs = 0;
        $attempt = static function () use (&$runs): string {
            $runs++;
            Async::delay(0.02);

            return 'connected';
        };
        $callers = [];
        for ($i = 0; $i < 3; $i++) {
            $callers[] = Async::run(static fn (): string => $shared->await($attempt));
        }

        foreach ($callers as $caller) {
            self::assertSame('connected', $caller->await());
        }
        self::assertSame(1, $runs);
        self::assertFalse($shared->isRunning());
    }

    public function testACallerWhoseDeadlinePassesLeavesAloneAndTheOthersGetTheResult(): void
    {
        /** @var SharedAttempt<string> $shared */
        $shared = new SharedAttempt();
        $attempt = static function (): string {
            Async::delay(0.1);

            return 'connected';
        };
        $hurried = Async::run(static fn (): string => $shared->await($attempt, new TimeoutCancellation(0.02)));
        $patient = Async::run(static fn (): string => $shared->await($attempt));

        $started = \microtime(true);
        try {
            $hurried->await();
            self::fail('the hurried caller waited past its deadline');
        } catch (TimeoutException) {
            self::assertLessThan(0.08, \microtime(true) - $started);
        }
        self::assertSame('connected', $patient->await());
    }

    public function testAFailureReachesEveryWaitingCallerAndTheNextCallerStartsAFreshAttempt(): void
    {
        /** @var SharedAttempt<string> $shared */
        $shared = new SharedAttempt();
        $runs = 0;
        $failing = static function () use (&$runs): never {
            $runs++;
            Async::delay(0.01);
            throw new \RuntimeException('refused');
        };
        $first = Async::run(static fn (): string => $shared->await($failing));
        $second = Async::run(static fn (): string => $shared->await($failing));
        foreach ([$first, $second] as $caller) {
            try {
                $caller->await();
                self::fail('a failed attempt answered');
            } catch (\RuntimeException $e) {
                self::assertSame('refused', $e->getMessage());
            }
        }
        self::assertSame(1, $runs);

        self::assertSame('again', $shared->await(static fn (): string => 'again'));
    }

    public function testAnAttemptEveryCallerLeftStillRunsToItsEndAndItsFailureIsNotReported(): void
    {
        /** @var SharedAttempt<string> $shared */
        $shared = new SharedAttempt();
        $ended = false;
        $source = new CancellationSource();
        $attempt = static function () use (&$ended): never {
            Async::delay(0.03);
            $ended = true;
            throw new \RuntimeException('nobody listens');
        };
        $caller = Async::run(static fn (): string => $shared->await($attempt, $source->token()));
        Async::delay(0.005);
        $source->cancel();
        try {
            $caller->await();
            self::fail('a cancelled caller got an answer');
        } catch (CancelledException) {
        }

        Async::delay(0.05);
        self::assertTrue($ended);
        self::assertFalse($shared->isRunning());
    }
}
