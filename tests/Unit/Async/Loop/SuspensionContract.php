<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async\Loop;

use Revolt\EventLoop\Suspension;
use Revolt\EventLoop\UncaughtThrowable;

/** Suspensions, microtasks and error handling by Revolt's Driver contract. */
abstract class SuspensionContract extends DriverTestCase
{
    public function testAFiberSuspendsUntilACallbackResumesItWithAValue(): void
    {
        $driver = $this->driver;
        $log = [];
        $driver->queue(static function () use ($driver, &$log): void {
            $suspension = $driver->getSuspension();
            $driver->delay(0.002, static function () use ($suspension, &$log): void {
                $log[] = 'timer';
                $suspension->resume('value');
            });
            $log[] = 'suspending';
            $log[] = 'resumed with ' . $suspension->suspend();
        });

        $driver->run();

        self::assertSame(['suspending', 'timer', 'resumed with value'], $log);
    }

    public function testAFiberSuspensionCanBeResumedWithAnException(): void
    {
        $driver = $this->driver;
        $caught = null;
        $driver->queue(static function () use ($driver, &$caught): void {
            $suspension = $driver->getSuspension();
            $driver->defer(static function () use ($suspension): void {
                $suspension->throw(new \RuntimeException('thrown in'));
            });
            try {
                $suspension->suspend();
            } catch (\RuntimeException $e) {
                $caught = $e->getMessage();
            }
        });

        $driver->run();

        self::assertSame('thrown in', $caught);
    }

    public function testMainSuspendsUntilACallbackResumesIt(): void
    {
        $driver = $this->driver;
        $suspension = $driver->getSuspension();
        $driver->delay(0.002, static function () use ($suspension): void {
            $suspension->resume('for main');
        });

        self::assertSame('for main', $suspension->suspend());
    }

    public function testMainSuspensionRethrowsWhatIsThrownIntoIt(): void
    {
        $driver = $this->driver;
        $suspension = $driver->getSuspension();
        $driver->defer(static function () use ($suspension): void {
            $suspension->throw(new \DomainException('for main'));
        });

        $this->expectException(\DomainException::class);
        $this->expectExceptionMessage('for main');
        $suspension->suspend();
    }

    public function testMainCanSuspendAgainAndTheLoopGoesOnWhereItLeftOff(): void
    {
        $driver = $this->driver;
        $ticks = 0;
        $driver->repeat(0.001, static function () use (&$ticks): void {
            $ticks++;
        });
        $suspension = $driver->getSuspension();
        $values = [];
        for ($i = 1; $i <= 3; $i++) {
            $driver->delay(0.002, static function () use ($suspension, $i): void {
                $suspension->resume($i);
            });
            $values[] = $suspension->suspend();
        }

        self::assertSame([1, 2, 3], $values);
        self::assertGreaterThanOrEqual(3, $ticks);
    }

    public function testMainCanWaitForAFiberToFinish(): void
    {
        $driver = $this->driver;
        $main = $driver->getSuspension();
        $driver->queue(static function () use ($driver, $main): void {
            $own = $driver->getSuspension();
            $driver->delay(0.001, static function () use ($own): void {
                $own->resume(20);
            });
            $main->resume($own->suspend() + 1);
        });

        self::assertSame(21, $main->suspend());
    }

    public function testTheSameFiberGetsTheSameSuspensionAndOtherFibersDifferentOnes(): void
    {
        $driver = $this->driver;
        $main = $driver->getSuspension();
        self::assertSame($main, $driver->getSuspension());
        $fromFibers = [];
        for ($i = 0; $i < 2; $i++) {
            $driver->queue(static function () use ($driver, &$fromFibers): void {
                $suspension = $driver->getSuspension();
                self::assertSame($suspension, $driver->getSuspension());
                $fromFibers[] = $suspension;
                // Suspended, so the next microtask runs in another fiber.
                $driver->defer(static fn () => $suspension->resume());
                $suspension->suspend();
            });
        }

        $driver->run();

        self::assertCount(2, $fromFibers);
        self::assertNotSame($fromFibers[0], $fromFibers[1]);
        self::assertNotSame($main, $fromFibers[0]);
        self::assertNotSame($main, $fromFibers[1]);
    }

    public function testResumingOrThrowingIntoASuspensionThatIsNotSuspendedIsAnError(): void
    {
        $driver = $this->driver;
        $errors = [];
        $attempt = static function (Suspension $suspension) use (&$errors): void {
            $calls = [
                static fn () => $suspension->resume(),
                static fn () => $suspension->throw(new \RuntimeException()),
            ];
            foreach ($calls as $call) {
                try {
                    $call();
                    $errors[] = 'accepted';
                } catch (\Error $e) {
                    $errors[] = $e->getMessage();
                }
            }
        };

        $attempt($driver->getSuspension());
        $driver->queue(static function () use ($driver, $attempt): void {
            $attempt($driver->getSuspension());
        });
        $driver->run();

        self::assertCount(4, $errors);
        foreach ($errors as $error) {
            self::assertStringContainsString('Must call suspend() before', $error);
        }
    }

    public function testASuspensionResumedTwiceIsAnError(): void
    {
        $driver = $this->driver;
        $second = null;
        $driver->queue(static function () use ($driver, &$second): void {
            $suspension = $driver->getSuspension();
            $driver->defer(static function () use ($suspension, &$second): void {
                $suspension->resume(1);
                try {
                    $suspension->resume(2);
                } catch (\Error $e) {
                    $second = $e->getMessage();
                }
            });
            self::assertSame(1, $suspension->suspend());
        });

        $driver->run();

        self::assertNotNull($second);
        self::assertStringContainsString('Must call suspend() before calling resume()', $second);
    }

    public function testSuspendingAgainBeforeBeingResumedIsAnError(): void
    {
        $driver = $this->driver;
        $fiber = new \Fiber(static function () use ($driver): void {
            $suspension = $driver->getSuspension();
            $suspension->suspend();
            // Resumed behind the suspension's back, so it still counts as suspended.
            $suspension->suspend();
        });
        $fiber->start();

        try {
            $fiber->resume();
            self::fail('A second suspend() without a resume() was accepted');
        } catch (\Error $e) {
            self::assertStringContainsString(
                'Must call resume() or throw() before calling suspend() again',
                $e->getMessage(),
            );
        }
        self::assertTrue($fiber->isTerminated());
    }

    public function testSuspendingFromAnotherFiberIsAnError(): void
    {
        $driver = $this->driver;
        $main = $driver->getSuspension();
        $error = null;
        $driver->queue(static function () use ($main, &$error): void {
            try {
                $main->suspend();
            } catch (\Error $e) {
                $error = $e->getMessage();
            }
        });

        $driver->run();

        self::assertNotNull($error);
        self::assertStringContainsString('Must not call suspend() from another fiber', $error);
    }

    public function testSuspendingMainWithNothingToWakeItReportsADeadlock(): void
    {
        $driver = $this->driver;
        // Unreferenced callbacks do not count: they cannot keep the loop going.
        $driver->unreference($driver->delay(1, static function (): void {
        }));
        $started = \hrtime(true);

        try {
            $driver->getSuspension()->suspend();
            self::fail('Suspending main with nothing to resume it returned');
        } catch (\Error $e) {
            self::assertStringContainsString(
                'Event loop terminated without resuming the current suspension',
                $e->getMessage(),
            );
        }
        self::assertLessThan(0.05, self::secondsSince($started));
    }

    public function testMainIsStillSuspendableAfterADeadlockReport(): void
    {
        $driver = $this->driver;
        $suspension = $driver->getSuspension();
        try {
            $suspension->suspend();
        } catch (\Error) {
            // the deadlock report
        }
        $driver->defer(static fn () => $suspension->resume('again'));

        self::assertSame('again', $suspension->suspend());
    }

    public function testACallbackThatSuspendsDoesNotHoldUpLaterCallbacks(): void
    {
        $driver = $this->driver;
        $log = [];
        $suspensions = [];
        foreach (['a', 'b', 'c'] as $name) {
            $driver->defer(static function () use ($driver, $name, &$log, &$suspensions): void {
                $log[] = $name . ' suspends';
                $suspensions[$name] = $driver->getSuspension();
                $log[] = $name . ' resumed with ' . $suspensions[$name]->suspend();
            });
        }
        $driver->defer(static function () use (&$log): void {
            $log[] = 'plain defer';
        });
        $driver->delay(0.002, static function () use (&$suspensions, &$log): void {
            $log[] = 'timer';
            foreach (['c', 'b', 'a'] as $name) {
                $suspensions[$name]->resume(\strtoupper($name));
            }
        });

        $driver->run();

        self::assertSame([
            'a suspends', 'b suspends', 'c suspends', 'plain defer', 'timer',
            'c resumed with C', 'b resumed with B', 'a resumed with A',
        ], $log);
        self::assertNotSame($suspensions['a'], $suspensions['b'], 'each suspended callback kept its own fiber');
    }

    public function testCallbacksGoOnRunningAfterTheirFiberWasHandedToATask(): void
    {
        $driver = $this->driver;
        $runs = 0;
        $taskDone = false;
        $driver->defer(static function () use ($driver, &$taskDone): void {
            $suspension = $driver->getSuspension();
            $driver->delay(0.001, static fn () => $suspension->resume());
            $suspension->suspend();
            $taskDone = true;
        });
        $driver->repeat(0.001, static function (string $id) use ($driver, &$runs): void {
            if (++$runs === 5) {
                $driver->cancel($id);
            }
        });

        $driver->run();

        self::assertTrue($taskDone);
        self::assertSame(5, $runs);
    }

    public function testMicrotasksRunBeforeTheNextPoll(): void
    {
        $driver = $this->driver;
        [$reader, $writer] = self::socketPair();
        \fwrite($writer, 'x');
        $log = [];
        $driver->defer(static function () use ($driver, $reader, &$log): void {
            $log[] = 'defer';
            $driver->queue(static function () use (&$log): void {
                $log[] = 'microtask';
            });
            $driver->defer(static function () use (&$log): void {
                $log[] = 'next defer';
            });
            $driver->onReadable($reader, static function (string $id) use ($driver, &$log): void {
                $log[] = 'readable';
                $driver->cancel($id);
            });
        });

        $driver->run();

        self::assertSame(['defer', 'microtask', 'next defer', 'readable'], $log);
    }

    public function testMicrotasksQueuedBeforeRunGoFirstInQueueOrderWithTheirArguments(): void
    {
        $driver = $this->driver;
        $log = [];
        $driver->defer(static function () use (&$log): void {
            $log[] = 'defer';
        });
        $driver->queue(static function (string $a, int $b) use ($driver, &$log): void {
            $log[] = $a . $b;
            $driver->queue(static function () use (&$log): void {
                $log[] = 'queued by the first';
            });
        }, 'first', 1);
        $driver->queue(static function (string $a) use (&$log): void {
            $log[] = $a;
        }, 'second');

        $driver->run();

        self::assertSame(['first1', 'second', 'queued by the first', 'defer'], $log);
    }

    /**
     * Revolt's Driver contract for queue(): "The queued callback MUST be executed immediately once
     * the event loop gains control." The loop gains control when the callback returns.
     */
    public function testAMicrotaskQueuedByACallbackRunsBeforeTheNextCallbackOfTheSameTick(): void
    {
        $driver = $this->driver;
        $log = [];
        $driver->defer(static function () use ($driver, &$log): void {
            $log[] = 'first defer';
            $driver->queue(static function () use (&$log): void {
                $log[] = 'microtask of the first defer';
            });
        });
        $driver->defer(static function () use (&$log): void {
            $log[] = 'second defer';
        });

        $driver->run();

        self::assertSame(['first defer', 'microtask of the first defer', 'second defer'], $log);
    }

    public function testTheErrorHandlerReceivesExceptionsFromCallbacksAndMicrotasksAndTheLoopGoesOn(): void
    {
        $driver = $this->driver;
        $errors = [];
        $driver->setErrorHandler(static function (\Throwable $error) use (&$errors): void {
            $errors[] = $error->getMessage();
        });
        $ran = [];
        $driver->defer(static fn () => throw new \RuntimeException('from a defer'));
        $driver->defer(static function () use (&$ran): void {
            $ran[] = 'defer after the failing one';
        });
        $driver->queue(static fn () => throw new \LogicException('from a microtask'));
        $driver->delay(0.001, static fn () => throw new \RuntimeException('from a timer'));
        $driver->delay(0.002, static function () use (&$ran): void {
            $ran[] = 'later timer';
        });

        $driver->run();

        self::assertSame(['from a microtask', 'from a defer', 'from a timer'], $errors);
        self::assertSame(['defer after the failing one', 'later timer'], $ran);
        self::assertNotNull($driver->getErrorHandler());
    }

    public function testTheErrorHandlerReceivesExceptionsFromResumedFibersAndTasks(): void
    {
        $driver = $this->driver;
        $errors = [];
        $driver->setErrorHandler(static function (\Throwable $error) use (&$errors): void {
            $errors[] = $error->getMessage();
        });
        // A fiber of the program's own, resumed by the loop.
        $plain = new \Fiber(static function () use ($driver): void {
            $suspension = $driver->getSuspension();
            $driver->delay(0.001, static fn () => $suspension->resume());
            $suspension->suspend();

            throw new \RuntimeException('from a plain fiber');
        });
        $plain->start();
        // A callback that suspended and so became a task.
        $driver->defer(static function () use ($driver): void {
            $suspension = $driver->getSuspension();
            $driver->delay(0.002, static fn () => $suspension->resume());
            $suspension->suspend();

            throw new \RuntimeException('from a task');
        });

        $driver->run();

        self::assertSame(['from a plain fiber', 'from a task'], $errors);
    }

    public function testAnErrorHandlerThatSuspendsDoesNotHoldUpTheLoop(): void
    {
        $driver = $this->driver;
        $log = [];
        $driver->setErrorHandler(static function (\Throwable $error) use ($driver, &$log): void {
            $log[] = 'handler got ' . $error->getMessage();
            $suspension = $driver->getSuspension();
            $driver->delay(0.002, static fn () => $suspension->resume());
            $suspension->suspend();
            $log[] = 'handler done';
        });
        $driver->defer(static fn () => throw new \RuntimeException('boom'));
        $driver->defer(static function () use (&$log): void {
            $log[] = 'next defer';
        });

        $driver->run();

        self::assertSame(['handler got boom', 'next defer', 'handler done'], $log);
    }

    public function testWithoutAnErrorHandlerAnExceptionFromACallbackIsThrownFromRun(): void
    {
        $driver = $this->driver;
        $log = [];
        $driver->defer(static fn () => throw new \RuntimeException('boom'));
        $driver->defer(static function () use (&$log): void {
            $log[] = 'next defer';
        });

        try {
            $driver->run();
            self::fail('run() returned although a callback threw');
        } catch (UncaughtThrowable $e) {
            self::assertInstanceOf(\RuntimeException::class, $e->getPrevious());
            self::assertSame('boom', $e->getPrevious()->getMessage());
        }
        self::assertSame([], $log, 'the loop stopped at the failing callback');

        // The loop picks up where it stopped.
        $driver->run();
        self::assertSame(['next defer'], $log);
    }

    public function testWithoutAnErrorHandlerAnExceptionFromACallbackIsThrownIntoTheSuspendedMain(): void
    {
        $driver = $this->driver;
        $driver->delay(0.002, static fn () => throw new \RuntimeException('boom'));
        $driver->delay(1, static function (): void {
        }); // would resume nothing, but keeps the loop alive

        try {
            $driver->getSuspension()->suspend();
            self::fail('Main was not woken by the uncaught exception');
        } catch (UncaughtThrowable $e) {
            self::assertInstanceOf(\RuntimeException::class, $e->getPrevious());
            self::assertSame('boom', $e->getPrevious()->getMessage());
        }
    }

    public function testWithoutAnErrorHandlerAnExceptionFromAMicrotaskIsThrownFromRun(): void
    {
        $this->driver->queue(static fn () => throw new \LogicException('micro boom'));

        try {
            $this->driver->run();
            self::fail('run() returned although a microtask threw');
        } catch (UncaughtThrowable $e) {
            self::assertInstanceOf(\LogicException::class, $e->getPrevious());
        }
    }

    public function testAnExceptionFromTheErrorHandlerIsThrownFromRun(): void
    {
        $driver = $this->driver;
        $driver->setErrorHandler(static fn (\Throwable $e) => throw new \LogicException('handler gave up', 0, $e));
        $driver->defer(static fn () => throw new \RuntimeException('boom'));

        try {
            $driver->run();
            self::fail('run() returned although the error handler threw');
        } catch (UncaughtThrowable $e) {
            $previous = $e->getPrevious();
            self::assertInstanceOf(\LogicException::class, $previous);
            self::assertSame('handler gave up', $previous->getMessage());
            self::assertInstanceOf(\RuntimeException::class, $previous->getPrevious());
        }
    }

    public function testClearingTheErrorHandlerMakesExceptionsUncaughtAgain(): void
    {
        $driver = $this->driver;
        $handler = static function (): void {
        };
        $driver->setErrorHandler($handler);
        self::assertSame($handler, $driver->getErrorHandler());
        $driver->setErrorHandler(null);
        self::assertNull($driver->getErrorHandler());
        $driver->defer(static fn () => throw new \RuntimeException('boom'));

        $this->expectException(UncaughtThrowable::class);
        $driver->run();
    }
}
