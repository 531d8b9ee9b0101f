<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async\Loop;

use Revolt\EventLoop\FiberLocal;

/**
 * Bobbin's driver only: a callback fiber that a task took (the callback waited) and that has
 * finished the task is kept as a spare and runs later callbacks, instead of a new fiber being
 * made for them (each new fiber is a C stack mapped, guarded and named by system calls, and
 * unmapped again when it ends: four system calls per waiting request).
 */
abstract class CallbackFiberReuseContract extends DriverTestCase
{
    public function testAFiberWhoseTaskFinishedRunsTheNextCallbackThatNeedsAFiber(): void
    {
        $driver = $this->driver;
        $taskFiber = null;
        $laterFiber = null;
        $driver->queue(static function () use ($driver, &$taskFiber, &$laterFiber): void {
            $taskFiber = \Fiber::getCurrent();
            $suspension = $driver->getSuspension();
            $driver->delay(0.001, static fn () => $suspension->resume());
            $suspension->suspend(); // this fiber is the task's now: the loop makes another for callbacks
            // A second task takes that other fiber; the callback after it needs a fiber again.
            $driver->queue(static function () use ($driver): void {
                $suspension = $driver->getSuspension();
                $driver->delay(0.003, static fn () => $suspension->resume());
                $suspension->suspend();
            });
            $driver->delay(0.002, static function () use (&$laterFiber): void {
                $laterFiber = \Fiber::getCurrent();
            });
        });

        $driver->run();

        self::assertNotNull($taskFiber);
        self::assertSame($taskFiber, $laterFiber, 'the first task\'s fiber, finished, ran the later callback');
    }

    public function testAReusedFiberStartsWithoutTheFiberLocalValuesOfItsLastTask(): void
    {
        $driver = $this->driver;
        $local = new FiberLocal(static fn (): string => 'unset');
        $seen = [];
        $driver->queue(static function () use ($driver, $local, &$seen): void {
            $local->set('the first task\'s');
            $suspension = $driver->getSuspension();
            $driver->delay(0.001, static fn () => $suspension->resume());
            $suspension->suspend();
            $seen[] = $local->get();
            $driver->queue(static function () use ($driver): void {
                $suspension = $driver->getSuspension();
                $driver->delay(0.003, static fn () => $suspension->resume());
                $suspension->suspend();
            });
            $driver->delay(0.002, static function () use ($local, &$seen): void {
                $seen[] = $local->get();
            });
        });

        $driver->run();

        self::assertSame(['the first task\'s', 'unset'], $seen);
    }

    public function testASuspendedTaskIsNotResumedByCallbacksRunInItsFormerFiberSpare(): void
    {
        // Several tasks wait at once: each took a callback fiber, and fibers freed by finished
        // tasks serve the others' callbacks; every task is resumed once, with its own value.
        $driver = $this->driver;
        $results = [];
        for ($i = 0; $i < 20; $i++) {
            $driver->queue(static function () use ($driver, $i, &$results): void {
                $suspension = $driver->getSuspension();
                for ($wait = 0; $wait < 3; $wait++) {
                    $driver->delay(0.0005 * (($i * 7 + $wait) % 5), static fn () => $suspension->resume("$i.$wait"));
                    $results[$i][] = $suspension->suspend();
                }
            });
        }

        $driver->run();

        self::assertCount(20, $results);
        foreach ($results as $i => $values) {
            self::assertSame(["$i.0", "$i.1", "$i.2"], $values);
        }
    }

    public function testASpareFiberResumedByOtherCodeRunsNothingAndStaysSpare(): void
    {
        // Only the loop may resume its fibers; a stray resume() must not make a second callback fiber.
        $driver = $this->driver;
        $spare = null;
        $ran = [];
        $driver->queue(static function () use ($driver, &$spare): void {
            $spare = \Fiber::getCurrent();
            $suspension = $driver->getSuspension();
            $driver->delay(0.001, static fn () => $suspension->resume());
            $suspension->suspend();
        });
        $driver->delay(0.003, static function () use ($driver, &$spare, &$ran): void {
            self::assertNotSame($spare, \Fiber::getCurrent());
            $driver->queue(static function () use (&$ran): void {
                $ran[] = 'queued';
            });
            $spare->resume(); // returns at once, running nothing: the spare waits to be the callback fiber
            $ran[] = 'after the stray resume';
        });

        $driver->run();

        self::assertSame(['after the stray resume', 'queued'], $ran);
        self::assertTrue($spare->isSuspended());
    }

    public function testFinishedTaskFibersAreKeptOnlyUpToALimit(): void
    {
        // A burst of tasks that all waited at once leaves at most a few fibers kept, not one per task.
        $driver = $this->driver;
        $fibers = new \WeakMap();
        for ($i = 0; $i < 200; $i++) {
            $driver->queue(static function () use ($driver, $fibers): void {
                $fibers[\Fiber::getCurrent()] = true;
                $suspension = $driver->getSuspension();
                $driver->delay(0.001, static fn () => $suspension->resume());
                $suspension->suspend();
            });
        }

        $driver->run();
        \gc_collect_cycles();

        self::assertGreaterThan(0, \count($fibers), 'a finished task\'s fiber is kept');
        self::assertLessThanOrEqual(\Bobbin\Async\Loop\FiberScheduler::SPARE_FIBERS + 1, \count($fibers), 'the spares and the callback fiber');
    }
}
