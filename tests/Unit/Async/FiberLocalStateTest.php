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

    protected function setUp(): void
    {
        parent::setUp();
        if (!EventLoop::getDriver() instanceof BobbinDriver) {
            self::markTestSkipped('kept at the waits of Bobbin\'s own driver only');
        }
        self::$current = null;
        FiberLocalStates::$states = [];
        Async::keepPerFiber(new class implements FiberLocalState {
            public function save(): mixed
            {
                $saved = FiberLocalStateTest::$current;
                FiberLocalStateTest::$current = null;

                return $saved;
            }

            public function restore(mixed $saved): void
            {
                FiberLocalStateTest::$current = \is_string($saved) ? $saved : null;
            }
        });
    }

    protected function tearDown(): void
    {
        FiberLocalStates::$states = [];
        parent::tearDown();
    }

    public function testEachFiberSeesOnlyWhatItSetAcrossDelaysChannelsAndKeyedWaits(): void
    {
        $channel = new Channel(10);
        $waiters = new KeyedWaiters();
        $seen = [];
        $futures = [];
        foreach (['ann', 'bob', 'cy'] as $i => $name) {
            $futures[] = Async::run(static function () use ($name, $i, $channel, $waiters, &$seen): void {
                $seen[$name][] = FiberLocalStateTest::$current;
                FiberLocalStateTest::$current = $name;
                Async::delay(0.01 * (3 - $i));
                $seen[$name][] = FiberLocalStateTest::$current;
                $channel->receive();
                $seen[$name][] = FiberLocalStateTest::$current;
                $waiters->wait($i);
                $seen[$name][] = FiberLocalStateTest::$current;
            });
        }
        Async::run(static function () use ($channel, $waiters): void {
            FiberLocalStateTest::$current = 'other';
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
