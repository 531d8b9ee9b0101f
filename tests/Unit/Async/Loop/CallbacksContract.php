<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async\Loop;

use Revolt\EventLoop\CallbackType;
use Revolt\EventLoop\FiberLocal;
use Revolt\EventLoop\InvalidCallbackError;

/** Callbacks by Revolt's Driver contract: defer, timers, streams, signals, state. */
abstract class CallbacksContract extends DriverTestCase
{
    /** @var callable|int|null SIGUSR1's disposition before the test */
    private $previousSignalHandler = null;

    protected function setUp(): void
    {
        parent::setUp();
        $this->previousSignalHandler = \pcntl_signal_get_handler(\SIGUSR1);
    }

    protected function tearDown(): void
    {
        parent::tearDown();
        if ($this->previousSignalHandler !== null) {
            \pcntl_signal(\SIGUSR1, $this->previousSignalHandler);
        }
    }

    public function testADeferredCallbackRunsOnTheNextTickNotTheCurrentOne(): void
    {
        $driver = $this->driver;
        $log = [];
        $driver->defer(static function () use ($driver, &$log): void {
            $log[] = 'first defer';
            $driver->defer(static function () use (&$log): void {
                $log[] = 'defer made by the first defer';
            });
        });
        $driver->defer(static function () use (&$log): void {
            $log[] = 'second defer';
        });
        $driver->delay(0, static function () use (&$log): void {
            $log[] = 'timer due in the first tick';
        });

        $driver->run();

        self::assertSame(
            ['first defer', 'second defer', 'timer due in the first tick', 'defer made by the first defer'],
            $log,
        );
    }

    public function testADeferredCallbackDoesNotRunBeforeTheLoopDoes(): void
    {
        $ran = false;
        $this->driver->defer(static function () use (&$ran): void {
            $ran = true;
        });

        self::assertFalse($ran);
        $this->driver->run();
        self::assertTrue($ran);
    }

    public function testDeferredCallbacksRunInTheOrderTheyWereEnabled(): void
    {
        $driver = $this->driver;
        $log = [];
        $ids = [];
        foreach (['a', 'b', 'c'] as $name) {
            $ids[$name] = $driver->defer(static function () use ($name, &$log): void {
                $log[] = $name;
            });
        }
        $driver->disable($ids['a']);
        $driver->enable($ids['a']);

        $driver->run();

        self::assertSame(['b', 'c', 'a'], $log);
    }

    public function testTimersFireInExpirationOrderAndEqualTimersInCreationOrder(): void
    {
        $driver = $this->driver;
        $log = [];
        $timers = [
            ['last', 0.006], ['middle 1', 0.002], ['middle 2', 0.002],
            ['first 1', 0], ['first 2', 0], ['first 3', 0],
        ];
        foreach ($timers as [$name, $delay]) {
            $driver->delay($delay, static function () use ($name, &$log): void {
                $log[] = $name;
            });
        }

        $driver->run();

        self::assertSame(['first 1', 'first 2', 'first 3', 'middle 1', 'middle 2', 'last'], $log);
    }

    public function testADelayedCallbackNeverRunsBeforeItsDelayAndReceivesItsIdentifier(): void
    {
        $driver = $this->driver;
        $started = \hrtime(true);
        $ranAfter = null;
        $receivedId = null;
        $id = $driver->delay(0.01, static function (string $id) use ($started, &$ranAfter, &$receivedId): void {
            $ranAfter = self::secondsSince($started);
            $receivedId = $id;
        });

        $driver->run();

        self::assertNotNull($ranAfter);
        self::assertGreaterThanOrEqual(0.01, $ranAfter);
        self::assertLessThan(0.1, $ranAfter);
        self::assertSame($id, $receivedId);
    }

    public function testANegativeDelayOrIntervalIsAnError(): void
    {
        try {
            $this->driver->delay(-0.001, static function (): void {
            });
            self::fail('A negative delay was accepted');
        } catch (\Error $e) {
            self::assertStringContainsString('greater than or equal to zero', $e->getMessage());
        }

        $this->expectException(\Error::class);
        $this->driver->repeat(-1, static function (): void {
        });
    }

    public function testARepeatingCallbackFirstRunsAfterOneIntervalAndRearmsUntilCancelled(): void
    {
        $driver = $this->driver;
        $started = \hrtime(true);
        $runs = [];
        $driver->repeat(0.003, static function (string $id) use ($driver, $started, &$runs): void {
            $runs[] = self::secondsSince($started);
            if (\count($runs) === 3) {
                $driver->cancel($id);
            }
        });

        $driver->run();

        self::assertCount(3, $runs);
        self::assertGreaterThanOrEqual(0.003, $runs[0]);
        self::assertGreaterThanOrEqual(0.003, $runs[1] - $runs[0]);
        self::assertGreaterThanOrEqual(0.003, $runs[2] - $runs[1]);
        self::assertSame([], $driver->getIdentifiers());
    }

    public function testARepeatingCallbackWithAZeroIntervalRunsOncePerTick(): void
    {
        $driver = $this->driver;
        $log = [];
        $driver->repeat(0, static function (string $id) use ($driver, &$log): void {
            $log[] = 'repeat';
            if (\count($log) === 5) {
                $driver->cancel($id);
            }
        });
        $driver->defer(static function () use ($driver, &$log): void {
            $log[] = 'defer';
            $driver->defer(static function () use (&$log): void {
                $log[] = 'defer';
            });
        });

        $driver->run();

        // A repeat that ran twice in one tick would show up twice between two defers.
        self::assertSame(['defer', 'repeat', 'defer', 'repeat', 'repeat'], \array_slice($log, 0, 5));
    }

    public function testADisabledCallbackDoesNotRunUntilEnabledAgain(): void
    {
        $driver = $this->driver;
        $runs = 0;
        $id = $driver->delay(0.001, static function () use (&$runs): void {
            $runs++;
        });

        self::assertSame($id, $driver->disable($id));
        self::assertFalse($driver->isEnabled($id));
        $driver->run(); // a disabled callback does not keep the loop alive either
        self::assertSame(0, $runs);
        self::assertContains($id, $driver->getIdentifiers());

        self::assertSame($id, $driver->enable($id));
        self::assertTrue($driver->isEnabled($id));
        $driver->run();
        self::assertSame(1, $runs);
    }

    public function testEnablingADisabledTimerStartsItsDelayAfresh(): void
    {
        $driver = $this->driver;
        $started = \hrtime(true);
        $ranAfter = null;
        $id = $driver->disable($driver->delay(0.004, static function () use ($started, &$ranAfter): void {
            $ranAfter = self::secondsSince($started);
        }));
        \usleep(5_000);
        $driver->enable($id);

        $driver->run();

        self::assertNotNull($ranAfter);
        self::assertGreaterThanOrEqual(0.009, $ranAfter);
    }

    public function testCancellingDisablingOrUnreferencingAnInvalidIdentifierDoesNotFail(): void
    {
        $driver = $this->driver;
        $id = $driver->defer(static function (): void {
        });
        $driver->cancel($id);

        $driver->cancel($id);
        $driver->cancel('no such callback');
        self::assertSame('no such callback', $driver->disable('no such callback'));
        self::assertSame($id, $driver->disable($id));
        self::assertSame('no such callback', $driver->unreference('no such callback'));
        self::assertSame([], $driver->getIdentifiers());
    }

    public function testEnablingAnInvalidIdentifierThrowsInvalidCallbackError(): void
    {
        $this->expectException(InvalidCallbackError::class);
        $this->driver->enable('no such callback');
    }

    public function testEnablingACancelledCallbackThrowsInvalidCallbackError(): void
    {
        $id = $this->driver->delay(1, static function (): void {
        });
        $this->driver->cancel($id);

        $this->expectException(InvalidCallbackError::class);
        $this->driver->enable($id);
    }

    public function testQueryingOrReferencingAnInvalidIdentifierThrowsInvalidCallbackError(): void
    {
        $driver = $this->driver;
        $calls = [
            'reference' => static fn () => $driver->reference('nope'),
            'getType' => static fn () => $driver->getType('nope'),
            'isEnabled' => static fn () => $driver->isEnabled('nope'),
            'isReferenced' => static fn () => $driver->isReferenced('nope'),
        ];
        foreach ($calls as $method => $call) {
            try {
                $call();
                self::fail($method . '() accepted an invalid identifier');
            } catch (InvalidCallbackError $e) {
                self::assertStringContainsString('nope', $e->getMessage(), $method);
            }
        }
    }

    public function testACallbackDisabledByAnEarlierCallbackInTheSameTickDoesNotRun(): void
    {
        $driver = $this->driver;
        $log = [];
        $laterDefer = '';
        $laterTimer = '';
        $driver->defer(static function () use ($driver, &$laterDefer, &$log): void {
            $log[] = 'first defer';
            $driver->disable($laterDefer);
        });
        $laterDefer = $driver->defer(static function () use (&$log): void {
            $log[] = 'disabled defer';
        });
        $driver->delay(0, static function () use ($driver, &$laterTimer, &$log): void {
            $log[] = 'first timer';
            $driver->disable($laterTimer);
        });
        $laterTimer = $driver->delay(0, static function () use (&$log): void {
            $log[] = 'disabled timer';
        });

        $driver->run();

        self::assertSame(['first defer', 'first timer'], $log);
        self::assertFalse($driver->isEnabled($laterDefer));
        self::assertFalse($driver->isEnabled($laterTimer));
    }

    public function testACallbackDisabledAndEnabledAgainInTheSameTickWaitsForTheNextTick(): void
    {
        $driver = $this->driver;
        $log = [];
        $second = '';
        $driver->defer(static function () use ($driver, &$second, &$log): void {
            $log[] = 'first defer';
            $driver->disable($second);
            $driver->enable($second);
        });
        $second = $driver->defer(static function () use (&$log): void {
            $log[] = 'second defer';
        });
        $driver->delay(0, static function () use (&$log): void {
            $log[] = 'timer of the first tick';
        });

        $driver->run();

        self::assertSame(['first defer', 'timer of the first tick', 'second defer'], $log);
    }

    public function testACancelledCallbackDoesNotRunEvenIfItsEventWasAlreadySeen(): void
    {
        $driver = $this->driver;
        [$reader, $writer] = self::socketPair();
        \fwrite($writer, 'x');
        $log = [];
        $second = '';
        $driver->onReadable($reader, static function (string $id) use ($driver, &$second, &$log): void {
            $log[] = 'first';
            $driver->cancel($second);
            $driver->cancel($id);
        });
        $second = $driver->onReadable($reader, static function () use (&$log): void {
            $log[] = 'second';
        });

        $driver->run();

        self::assertSame(['first'], $log);
        self::assertSame([], $driver->getIdentifiers());
    }

    public function testADeferOrDelayIdentifierIsInvalidatedBeforeItsCallbackRuns(): void
    {
        $driver = $this->driver;
        $seen = [];
        $check = static function (string $id) use ($driver, &$seen): void {
            $seen[] = [
                \in_array($id, $driver->getIdentifiers(), true),
                self::throwsInvalidCallbackError(static fn () => $driver->isEnabled($id)),
            ];
        };
        $driver->defer($check);
        $driver->delay(0, $check);

        $driver->run();

        self::assertSame([[false, true], [false, true]], $seen);
    }

    public function testACallbackReturningAValueIsReportedAsAnInvalidCallbackError(): void
    {
        $driver = $this->driver;
        $errors = [];
        $driver->setErrorHandler(static function (\Throwable $error) use (&$errors): void {
            $errors[] = $error;
        });
        // @phpstan-ignore argument.type (the invalid callback is the point)
        $driver->defer(static fn () => 42);
        $after = false;
        $driver->delay(0.001, static function () use (&$after): void {
            $after = true;
        });

        $driver->run();

        self::assertCount(1, $errors);
        self::assertInstanceOf(InvalidCallbackError::class, $errors[0]);
        self::assertStringContainsStringIgnoringCase('non-null return value', $errors[0]->getMessage());
        self::assertTrue($after, 'the loop went on after the invalid callback');
    }

    public function testGetTypeIsEnabledAndIsReferencedDescribeEachCallback(): void
    {
        $driver = $this->driver;
        [$reader, $writer] = self::socketPair();
        $noop = static function (): void {
        };
        $ids = [
            'defer' => $driver->defer($noop),
            'delay' => $driver->delay(1, $noop),
            'repeat' => $driver->repeat(1, $noop),
            'readable' => $driver->onReadable($reader, $noop),
            'writable' => $driver->onWritable($writer, $noop),
            'signal' => $driver->onSignal(\SIGUSR1, $noop),
        ];
        $driver->disable($ids['delay']);
        $driver->unreference($ids['repeat']);

        self::assertSame(CallbackType::Defer, $driver->getType($ids['defer']));
        self::assertSame(CallbackType::Delay, $driver->getType($ids['delay']));
        self::assertSame(CallbackType::Repeat, $driver->getType($ids['repeat']));
        self::assertSame(CallbackType::Readable, $driver->getType($ids['readable']));
        self::assertSame(CallbackType::Writable, $driver->getType($ids['writable']));
        self::assertSame(CallbackType::Signal, $driver->getType($ids['signal']));

        self::assertFalse($driver->isEnabled($ids['delay']));
        self::assertTrue($driver->isEnabled($ids['repeat']));
        self::assertTrue($driver->isReferenced($ids['delay']), 'disabling does not unreference');
        self::assertFalse($driver->isReferenced($ids['repeat']));
        self::assertTrue($driver->isReferenced($ids['readable']));

        self::assertSame($ids['repeat'], $driver->reference($ids['repeat']));
        self::assertTrue($driver->isReferenced($ids['repeat']));

        self::assertCount(6, \array_unique($ids));
        self::assertEqualsCanonicalizing(\array_values($ids), $driver->getIdentifiers());
        self::assertSame(
            ['type' => CallbackType::Delay, 'enabled' => false, 'referenced' => true],
            $driver->__debugInfo()[$ids['delay']],
        );
        self::assertNull($driver->getHandle());

        foreach ($ids as $id) {
            $driver->cancel($id);
        }
        self::assertSame([], $driver->getIdentifiers());
    }

    public function testUnreferencedCallbacksDoNotKeepRunAlive(): void
    {
        $driver = $this->driver;
        [$reader, $writer] = self::socketPair();
        $noop = static function (): void {
        };
        $driver->unreference($driver->repeat(0.001, $noop));
        $driver->unreference($driver->delay(1, $noop));
        $driver->unreference($driver->onReadable($reader, $noop));

        $started = \hrtime(true);
        $driver->run();

        self::assertLessThan(0.05, self::secondsSince($started));
        self::assertCount(3, $driver->getIdentifiers());
    }

    public function testUnreferencedCallbacksStillRunWhileSomethingElseKeepsTheLoopAlive(): void
    {
        $driver = $this->driver;
        $repeats = 0;
        // The referenced delay keeps the loop alive for up to 2 s; the unreferenced repeat ends it
        // early by cancelling the delay on its third run (a fixed 15 ms window failed on a loaded
        // machine that ran the repeat twice in it).
        $keepAlive = $driver->delay(2, static function (): void {
        });
        $driver->unreference($driver->repeat(0.001, static function () use (&$repeats, $driver, $keepAlive): void {
            if (++$repeats === 3) {
                $driver->cancel($keepAlive);
            }
        }));

        $started = \hrtime(true);
        $driver->run();

        self::assertSame(3, $repeats);
        self::assertLessThan(1.5, self::secondsSince($started), 'the run ended when the repeat cancelled what kept it alive');
    }

    public function testStopEndsRunAfterTheCurrentTickAndTheCallbacksSurvive(): void
    {
        $driver = $this->driver;
        $log = [];
        $driver->defer(static function () use ($driver, &$log): void {
            $log[] = 'stopping defer';
            $driver->stop();
            $driver->stop(); // a second stop is ignored
            $driver->defer(static function () use (&$log): void {
                $log[] = 'next tick';
            });
        });
        $driver->defer(static function () use (&$log): void {
            $log[] = 'same tick';
        });

        $driver->run();

        self::assertSame(['stopping defer', 'same tick'], $log);
        self::assertFalse($driver->isRunning());
        self::assertCount(1, $driver->getIdentifiers());

        $driver->run();

        self::assertSame(['stopping defer', 'same tick', 'next tick'], $log);
    }

    public function testARepeatingCallbackCanStopTheLoopAndRunResumesIt(): void
    {
        $driver = $this->driver;
        $runs = 0;
        $id = $driver->repeat(0.001, static function () use ($driver, &$runs): void {
            $runs++;
            if ($runs % 2 === 0) {
                $driver->stop();
            }
        });

        $driver->run();
        self::assertSame(2, $runs);
        self::assertTrue($driver->isEnabled($id));

        $driver->run();
        self::assertSame(4, $runs);
    }

    public function testIsRunningIsTrueOnlyWhileTheLoopRunsAndRunInsideTheLoopIsAnError(): void
    {
        $driver = $this->driver;
        $runningInside = null;
        $nestedRun = null;
        $driver->defer(static function () use ($driver, &$runningInside, &$nestedRun): void {
            $runningInside = $driver->isRunning();
            try {
                $driver->run();
            } catch (\Error $e) {
                $nestedRun = $e->getMessage();
            }
        });

        self::assertFalse($driver->isRunning());
        $driver->run();

        self::assertFalse($driver->isRunning());
        self::assertTrue($runningInside);
        self::assertNotNull($nestedRun);
        self::assertStringContainsString('already running', $nestedRun);
    }

    public function testAReadableCallbackRunsWhenItsSocketHasDataAndReceivesTheStream(): void
    {
        $driver = $this->driver;
        [$reader, $writer] = self::socketPair();
        $received = [];
        $driver->onReadable($reader, static function (string $id, $stream) use ($driver, &$received): void {
            $received[] = [$id, $stream, \fread($stream, 100)];
            $driver->cancel($id);
        });
        $driver->delay(0.003, static function () use ($writer): void {
            \fwrite($writer, 'hello');
        });
        $started = \hrtime(true);

        $driver->run();

        self::assertCount(1, $received);
        self::assertSame($reader, $received[0][1]);
        self::assertSame('hello', $received[0][2]);
        self::assertGreaterThanOrEqual(0.003, self::secondsSince($started), 'not readable before the write');
    }

    public function testAReadableCallbackRunsAgainEachTickWhileDataIsLeftUnread(): void
    {
        $driver = $this->driver;
        [$reader, $writer] = self::socketPair();
        \fwrite($writer, 'abc');
        $chunks = [];
        $driver->onReadable($reader, static function (string $id, $stream) use ($driver, &$chunks): void {
            $chunks[] = \fread($stream, 1);
            if (\count($chunks) === 3) {
                $driver->cancel($id);
            }
        });

        $driver->run();

        self::assertSame(['a', 'b', 'c'], $chunks);
    }

    public function testAWritableCallbackRunsWhileItsSocketCanBeWritten(): void
    {
        $driver = $this->driver;
        [$reader, $writer] = self::socketPair();
        $received = null;
        $driver->onWritable($writer, static function (string $id, $stream) use ($driver, &$received): void {
            $received = $stream;
            \fwrite($stream, 'written');
            $driver->cancel($id);
        });

        $driver->run();

        self::assertSame($writer, $received);
        self::assertSame('written', \fread($reader, 100));
    }

    public function testEveryCallbackOnTheSameStreamRuns(): void
    {
        $driver = $this->driver;
        [$reader, $writer] = self::socketPair();
        \fwrite($writer, 'x');
        $log = [];
        foreach (['one', 'two', 'three'] as $name) {
            $driver->onReadable($reader, static function (string $id) use ($driver, $name, &$log): void {
                $log[] = $name;
                $driver->cancel($id);
            });
        }

        $driver->run();

        self::assertEqualsCanonicalizing(['one', 'two', 'three'], $log);
    }

    public function testAStreamCallbackDisabledByAnEarlierCallbackInTheSameTickDoesNotRun(): void
    {
        $driver = $this->driver;
        [$reader, $writer] = self::socketPair();
        \fwrite($writer, 'x');
        $log = [];
        $ids = [];
        foreach (['one', 'two'] as $name) {
            $ids[$name] = $driver->onReadable($reader, static function () use ($driver, $name, &$ids, &$log): void {
                $log[] = $name;
                foreach ($ids as $id) {
                    $driver->disable($id);
                }
            });
        }

        $driver->run();

        self::assertCount(1, $log, 'the callback that ran first disabled the other before its turn');
    }

    public function testASignalCallbackRunsWhenTheProcessReceivesTheSignal(): void
    {
        $driver = $this->driver;
        $received = [];
        $id = $driver->onSignal(\SIGUSR1, static function (string $id, int $signal) use ($driver, &$received): void {
            $received[] = [$id, $signal];
            $driver->cancel($id);
        });

        $driver->defer(self::sendSignalToThisProcess(...));
        $started = \hrtime(true);
        $driver->run();

        self::assertSame([[$id, \SIGUSR1]], $received);
        self::assertLessThan(0.1, self::secondsSince($started));
        self::assertSame(
            \SIG_DFL,
            \pcntl_signal_get_handler(\SIGUSR1),
            'the last signal callback gone, the default disposition is back',
        );
    }

    public function testEverySignalCallbackForASignalRunsWhileAnUnreferencedOneAloneDoesNotKeepRunAlive(): void
    {
        $driver = $this->driver;
        $log = [];
        $unreferenced = $driver->unreference($driver->onSignal(\SIGUSR1, static function () use (&$log): void {
            $log[] = 'unreferenced';
        }));
        $driver->onSignal(\SIGUSR1, static function (string $id) use ($driver, &$log): void {
            $log[] = 'referenced';
            $driver->cancel($id);
        });

        $driver->defer(self::sendSignalToThisProcess(...));
        $driver->run();

        self::assertEqualsCanonicalizing(['unreferenced', 'referenced'], $log);
        self::assertSame([$unreferenced], $driver->getIdentifiers());
        $driver->cancel($unreferenced);
    }

    /**
     * A registration that throws must not leave a callback behind: the caller never got its
     * identifier, so nobody can cancel it, and a referenced one would keep run() alive forever.
     */
    public function testASignalCallbackThatFailsToRegisterLeavesNoCallbackBehind(): void
    {
        $driver = $this->driver;
        try {
            $driver->onSignal(999, static function (): void {
            });
            self::fail('Signal 999 does not exist, yet its callback was registered');
        } catch (\Throwable $e) {
            self::assertNotInstanceOf(\PHPUnit\Framework\AssertionFailedError::class, $e);
        }

        self::assertSame([], $driver->getIdentifiers());

        $stoppedByGuard = false;
        $driver->unreference($driver->delay(0.02, static function () use ($driver, &$stoppedByGuard): void {
            $stoppedByGuard = true;
            $driver->stop();
        }));
        $driver->run();
        self::assertFalse($stoppedByGuard, 'run() did not return by itself: something referenced was left behind');
    }

    /**
     * Revolt's Driver contract: "If fibers are reused, the driver needs to call FiberLocal::clear()
     * after running the callback."
     */
    public function testAReusedCallbackFiberDoesNotLeakFiberLocalValuesIntoTheNextCallback(): void
    {
        $driver = $this->driver;
        $local = new FiberLocal(static fn (): string => 'initial');
        $seen = [];
        $driver->defer(static function () use ($local, &$seen): void {
            $seen[] = $local->get();
            $local->set('set by the first callback');
        });
        $driver->defer(static function () use ($local, &$seen): void {
            $seen[] = $local->get();
        });
        $driver->queue(static function () use ($local): void {
            $local->set('set by a microtask');
        });

        $driver->run();

        self::assertSame(['initial', 'initial'], $seen);
    }

    /** Sent from inside the loop: a signal callback is only active from the tick after it was created. */
    private static function sendSignalToThisProcess(): void
    {
        self::assertTrue(\posix_kill(\getmypid(), \SIGUSR1));
    }

    private static function throwsInvalidCallbackError(\Closure $call): bool
    {
        try {
            $call();
        } catch (InvalidCallbackError) {
            return true;
        }

        return false;
    }
}
