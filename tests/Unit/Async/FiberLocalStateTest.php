<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async;

use Bobbin\Async\Async;
use Bobbin\Async\Channel;
use Bobbin\Async\FiberLocalState;
use Bobbin\Async\Internal\FiberLocalStates;
use Bobbin\Async\KeyedWaiters;
use Bobbin\Async\Loop\BobbinDriver;
use Revolt\EventLoop;

/** State kept per fiber follows the fiber across its waits, whichever kind of wait it is. */
final class FiberLocalStateTest extends AsyncTestCase
{
    /** What a library would keep per process: one "current user". */
    public static ?string $current = null;
    public static int $saves = 0;

    protected function setUp(): void
    {
        parent::setUp();
        if (!EventLoop::getDriver() instanceof BobbinDriver) {
            self::markTestSkipped('kept at the waits of Bobbin\'s own driver only');
        }
        self::$current = null;
        self::$saves = 0;
        FiberLocalStates::forgetAll();
    }

    private static function keepCurrentPerFiber(bool $savedAfterChangesOnly = false): void
    {
        Async::keepPerFiber(new class implements FiberLocalState {
            public function save(): mixed
            {
                FiberLocalStateTest::$saves++;
                $saved = FiberLocalStateTest::$current;
                FiberLocalStateTest::$current = null;

                return $saved;
            }

            public function restore(mixed $saved): void
            {
                FiberLocalStateTest::$current = \is_string($saved) ? $saved : null;
                if ($saved !== null) {
                    Async::perFiberStateChanged();
                }
            }
        }, $savedAfterChangesOnly);
    }

    protected function tearDown(): void
    {
        FiberLocalStates::forgetAll();
        parent::tearDown();
    }

    public function testEachFiberSeesOnlyWhatItSetAcrossDelaysChannelsAndKeyedWaits(): void
    {
        self::keepCurrentPerFiber();
        $this->runThreeFibersThatEachSetTheirOwnValue();
    }

    public function testStateSavedAfterChangesOnlyStillFollowsEachFiberWhenItsChangesAreSignalled(): void
    {
        self::keepCurrentPerFiber(savedAfterChangesOnly: true);
        $this->runThreeFibersThatEachSetTheirOwnValue(signalChanges: true);
    }

    public function testStateSavedAfterChangesOnlyCostsWaitsNothingUntilItChanges(): void
    {
        self::keepCurrentPerFiber(savedAfterChangesOnly: true);
        // A state just registered may hold something: the first wait of a fiber saves it.
        Async::run(static function (): void {
            Async::delay(0.001);
        })->await();
        self::$saves = 0;
        Async::run(static function (): void {
            Async::delay(0.001);
        })->await();
        Async::run(static function (): void {
            Async::delay(0.001);
        })->await();
        $savesWhileUntouched = self::$saves;

        Async::run(static function (): void {
            FiberLocalStateTest::$current = 'ann';
            Async::perFiberStateChanged();
            Async::delay(0.001);
        })->await();

        self::assertSame(0, $savesWhileUntouched);
        self::assertGreaterThanOrEqual(1, self::$saves);
    }

    public function testStateSavedAtEveryWaitIsSavedEvenWhenNothingSignalsAChange(): void
    {
        self::keepCurrentPerFiber();
        Async::run(static function (): void {
            Async::delay(0.001);
        })->await();

        self::assertGreaterThanOrEqual(1, self::$saves);
    }

    private function runThreeFibersThatEachSetTheirOwnValue(bool $signalChanges = false): void
    {
        $channel = new Channel(10);
        $waiters = new KeyedWaiters();
        $seen = [];
        $futures = [];
        foreach (['ann', 'bob', 'cy'] as $i => $name) {
            $futures[] = Async::run(static function () use ($name, $i, $channel, $waiters, $signalChanges, &$seen): void {
                $seen[$name][] = FiberLocalStateTest::$current;
                FiberLocalStateTest::$current = $name;
                if ($signalChanges) {
                    Async::perFiberStateChanged();
                }
                Async::delay(0.01 * (3 - $i));
                $seen[$name][] = FiberLocalStateTest::$current;
                $channel->receive();
                $seen[$name][] = FiberLocalStateTest::$current;
                $waiters->wait($i);
                $seen[$name][] = FiberLocalStateTest::$current;
            });
        }
        Async::run(static function () use ($channel, $waiters, $signalChanges): void {
            FiberLocalStateTest::$current = 'other';
            if ($signalChanges) {
                Async::perFiberStateChanged();
            }
            for ($i = 0; $i < 3; $i++) {
                $channel->send($i);
                Async::delay(0.005);
            }
            Async::delay(0.05); // every fiber waits for its key by now
            for ($i = 0; $i < 3; $i++) {
                $waiters->settle($i, null);
            }
            $waiters->runSettled();
        });
        foreach ($futures as $future) {
            $future->await();
        }

        self::assertSame([null, 'ann', 'ann', 'ann'], $seen['ann']);
        self::assertSame([null, 'bob', 'bob', 'bob'], $seen['bob']);
        self::assertSame([null, 'cy', 'cy', 'cy'], $seen['cy']);
    }
}
