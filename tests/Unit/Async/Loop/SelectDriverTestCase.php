<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async\Loop;

use Bobbin\Async\Loop\FiberSuspension;
use Bobbin\Async\Loop\SelectDriver;
use Bobbin\Tests\Support\Async\SocketPairs;
use PHPUnit\Framework\TestCase;
use Revolt\EventLoop;
use Revolt\EventLoop\Driver;

/**
 * Gives every test its own SelectDriver as the loop (no error handler, nothing registered) and
 * puts the previous driver back afterwards. A test may leave the loop suspended mid-run (awaiting
 * from {main} does that, so does an exception thrown out of run()): tearDown drops what is left
 * and lets the loop run to its end, since Revolt refuses to swap a running driver.
 */
abstract class SelectDriverTestCase extends TestCase
{
    use SocketPairs;

    protected SelectDriver $driver;
    private Driver $previousDriver;

    protected function setUp(): void
    {
        $this->previousDriver = EventLoop::getDriver();
        self::finish($this->previousDriver);
        $this->useDriver(new SelectDriver());
    }

    protected function tearDown(): void
    {
        self::finish($this->driver);
        EventLoop::setDriver($this->previousDriver);
        \gc_collect_cycles();
    }

    /** Makes $driver the test's loop (the current one must not be running). */
    protected function useDriver(SelectDriver $driver): void
    {
        $this->driver = $driver;
        EventLoop::setDriver($driver);
    }

    /**
     * The current fiber's (or {main}'s) suspension, typed for the driver's direct stream waits.
     *
     * @return FiberSuspension<mixed>
     */
    protected function suspension(): FiberSuspension
    {
        $suspension = $this->driver->getSuspension();
        self::assertInstanceOf(FiberSuspension::class, $suspension);

        return $suspension;
    }

    /** Seconds since $startedNs (an hrtime(true) reading). */
    protected static function secondsSince(int|float $startedNs): float
    {
        return (\hrtime(true) - $startedNs) / 1e9;
    }

    private static function finish(Driver $driver): void
    {
        for ($attempt = 0; $attempt < 5 && $driver->isRunning(); $attempt++) {
            foreach ($driver->getIdentifiers() as $id) {
                $driver->cancel($id);
            }
            // A fiber still waiting on a stream keeps the loop alive: do not hang the suite on it.
            $driver->unreference($driver->delay(0.5, static function () use ($driver): void {
                $driver->stop();
            }));
            try {
                $driver->run();
            } catch (EventLoop\UncaughtThrowable) {
                // Left behind by the test that just ran; the next attempt goes on from there.
            }
        }
    }
}
