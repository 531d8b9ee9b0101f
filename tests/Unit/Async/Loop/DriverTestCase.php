<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async\Loop;

use Bobbin\Async\Loop\BobbinDriver;
use Bobbin\Async\Loop\EpollUnavailableException;
use Bobbin\Async\Loop\FiberSuspension;
use Bobbin\Async\Loop\Poller;
use Bobbin\Tests\Support\Async\SocketPairs;
use PHPUnit\Framework\TestCase;
use Revolt\EventLoop;
use Revolt\EventLoop\Driver;

/**
 * The base of the driver contract tests (as revolt's DriverTest): each abstract test class
 * states a part of the contract, and a small subclass per driver runs it on that driver
 * (Select/, Epoll/, and Revolt/ for the parts Revolt's own driver keeps too).
 *
 * Gives every test its own driver as the loop (no error handler, nothing registered) and puts
 * the previous driver back afterwards. A test may leave the loop suspended mid-run (awaiting
 * from {main} does that, so does an exception thrown out of run()): tearDown drops what is left
 * and lets the loop run to its end, since Revolt refuses to swap a running driver.
 */
abstract class DriverTestCase extends TestCase
{
    use SocketPairs;

    /** @var Driver under the Bobbin-only contracts a BobbinDriver */
    protected Driver $driver;
    private Driver $previousDriver;

    /** The poller of the Bobbin driver under test (a new one per call). */
    abstract protected static function createPoller(): Poller;

    /** The driver under test: Bobbin's on createPoller(), unless a subclass tests another. */
    protected function createDriver(): Driver
    {
        return new BobbinDriver(static::createPoller());
    }

    protected function setUp(): void
    {
        $this->previousDriver = $this->driver = EventLoop::getDriver();
        self::finish($this->previousDriver);
        try {
            $driver = $this->createDriver();
        } catch (EpollUnavailableException $e) {
            self::markTestSkipped($e->getMessage());
        }
        $this->useDriver($driver);
    }

    protected function tearDown(): void
    {
        self::finish($this->driver);
        EventLoop::setDriver($this->previousDriver);
        \gc_collect_cycles();
    }

    /** Makes $driver the test's loop (the current one must not be running). */
    protected function useDriver(Driver $driver): void
    {
        $this->driver = $driver;
        EventLoop::setDriver($driver);
    }

    /** The driver under test, for Bobbin's own API (direct waits, isIdle()). */
    protected function bobbin(): BobbinDriver
    {
        self::assertInstanceOf(BobbinDriver::class, $this->driver);

        return $this->driver;
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
