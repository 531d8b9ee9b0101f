<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async\Loop;

use Bobbin\Async\Loop\BobbinDriver;

/**
 * Bobbin's direct stream waits (waitReadable/waitWritable, awaitReadable/awaitWritable and their
 * aborts), the inline poll of a waiting fiber, and poll batching.
 */
abstract class DirectStreamWaitContract extends DriverTestCase
{
    public function testWaitReadableInAFiberReturnsOnceDataArrivesAndNotBefore(): void
    {
        $driver = $this->bobbin();
        [$reader, $writer] = self::socketPair();
        $written = false;
        $read = null;
        $driver->queue(function () use ($driver, $reader, &$written, &$read): void {
            $driver->waitReadable($reader, $this->suspension());
            self::assertTrue($written, 'woken before any data was written');
            $read = \fread($reader, 100);
        });
        $driver->delay(0.005, static function () use ($writer, &$written): void {
            $written = true;
            \fwrite($writer, 'hello');
        });

        $driver->run();

        self::assertSame('hello', $read);
    }

    public function testWaitReadableFromMainReturnsOnceDataArrives(): void
    {
        $driver = $this->bobbin();
        [$reader, $writer] = self::socketPair();
        $driver->delay(0.003, static function () use ($writer): void {
            \fwrite($writer, 'for main');
        });
        $started = \hrtime(true);

        $driver->waitReadable($reader, $this->suspension());

        self::assertGreaterThanOrEqual(0.003, self::secondsSince($started));
        self::assertSame('for main', \fread($reader, 100));
    }

    public function testWaitReadableFromMainOnAStreamWithDataReturnsWithoutRunningTheLoop(): void
    {
        $driver = $this->bobbin();
        [$reader, $writer] = self::socketPair();
        \fwrite($writer, 'ready');
        $timerRan = false;
        $driver->delay(0, static function () use (&$timerRan): void {
            $timerRan = true;
        });

        $driver->waitReadable($reader, $this->suspension());

        self::assertFalse($driver->isRunning());
        self::assertFalse($timerRan, 'the loop did not get to run its callbacks');
        self::assertSame('ready', \fread($reader, 100));

        $driver->run();
        self::assertTrue($timerRan, 'a timer found due by the inline poll still runs');
    }

    /**
     * Nothing queued: the waiting fiber polls itself and, its stream being ready, goes on without
     * a fiber switch, so it runs before the callbacks that same poll found.
     */
    public function testAFiberWhoseStreamIsReadyGoesOnBeforeTheCallbacksFoundByTheSamePoll(): void
    {
        $driver = $this->bobbin();
        [$otherReader, $otherWriter] = self::socketPair(); // opened first: polled first
        [$reader, $writer] = self::socketPair();
        \fwrite($otherWriter, 'x');
        \fwrite($writer, 'y');
        $log = [];
        $driver->onReadable($otherReader, static function (string $id) use ($driver, &$log): void {
            $log[] = 'readable callback';
            $driver->cancel($id);
        });
        $driver->queue(function () use ($driver, $reader, &$log): void {
            $driver->waitReadable($reader, $this->suspension());
            $log[] = 'waiting fiber';
        });

        $driver->run();

        self::assertSame(['waiting fiber', 'readable callback'], $log);
    }

    public function testWaitingToReadAStreamAnotherFiberWaitsOnThrowsLogicException(): void
    {
        $driver = $this->bobbin();
        [$reader, $writer] = self::socketPair();
        $error = null;
        $firstRead = null;
        $driver->queue(function () use ($driver, $reader, &$firstRead): void {
            $driver->waitReadable($reader, $this->suspension());
            $firstRead = \fread($reader, 100);
        });
        $driver->queue(function () use ($driver, $reader, $writer, &$error): void {
            try {
                $driver->waitReadable($reader, $this->suspension());
            } catch (\LogicException $e) {
                $error = $e->getMessage();
            }
            \fwrite($writer, 'for the first');
        });

        $driver->run();

        self::assertNotNull($error);
        self::assertStringContainsString('already waiting to read', $error);
        self::assertSame('for the first', $firstRead, 'the first waiter was not disturbed');
    }

    public function testWaitingToWriteAStreamAnotherFiberWaitsOnThrowsLogicException(): void
    {
        $driver = $this->bobbin();
        [$reader, $writer] = self::socketPair();
        self::fillSendBuffer($writer);
        $error = null;
        $firstWoke = false;
        $driver->queue(function () use ($driver, $writer, &$firstWoke): void {
            $driver->waitWritable($writer, $this->suspension());
            $firstWoke = true;
        });
        $driver->queue(function () use ($driver, $reader, $writer, &$error): void {
            try {
                $driver->waitWritable($writer, $this->suspension());
            } catch (\LogicException $e) {
                $error = $e->getMessage();
            }
            self::drain($reader);
        });

        $driver->run();

        self::assertNotNull($error);
        self::assertStringContainsString('already waiting to write', $error);
        self::assertTrue($firstWoke);
    }

    public function testAbortReadWaitIsTrueWhileWaitingAndFalseOnceReadinessWokeTheFiber(): void
    {
        $driver = $this->bobbin();
        [$reader, $writer] = self::socketPair();
        $results = [];
        // Woken by readiness: nothing left to abort.
        $driver->queue(function () use ($driver, $reader, &$results): void {
            $suspension = $this->suspension();
            $driver->awaitReadable($reader, $suspension);
            $suspension->suspend();
            $results['after readiness'] = $driver->abortReadWait((int) $reader, $suspension);
        });
        $driver->delay(0.002, static function () use ($writer): void {
            \fwrite($writer, 'x');
        });
        // Aborted while waiting (a timeout would do this), then resumed by hand.
        [$silentReader, $silentWriter] = self::socketPair();
        $driver->queue(function () use ($driver, $silentReader, &$results): void {
            $suspension = $this->suspension();
            $driver->awaitReadable($silentReader, $suspension);
            $driver->delay(0.004, static function () use ($driver, $silentReader, $suspension, &$results): void {
                $results['while waiting'] = $driver->abortReadWait((int) $silentReader, $suspension);
                $results['twice'] = $driver->abortReadWait((int) $silentReader, $suspension);
                $suspension->resume('aborted');
            });
            $results['resumed with'] = $suspension->suspend();
        });
        $started = \hrtime(true);

        $driver->run(); // returns: the aborted wait no longer keeps the loop alive

        // The order the two fibers record in depends on how the 2 ms and 4 ms timers fall on a
        // loaded machine (both in one turn, or not); what each recorded does not.
        \ksort($results);
        self::assertSame(
            ['after readiness' => false, 'resumed with' => 'aborted', 'twice' => false, 'while waiting' => true],
            $results,
        );
        self::assertLessThan(0.1, self::secondsSince($started));
    }

    public function testAbortWriteWaitIsTrueWhileWaitingAndFalseOnceReadinessWokeTheFiber(): void
    {
        $driver = $this->bobbin();
        [$reader, $writer] = self::socketPair();
        self::fillSendBuffer($writer);
        $results = [];
        $driver->queue(function () use ($driver, $writer, &$results): void {
            $suspension = $this->suspension();
            $driver->awaitWritable($writer, $suspension);
            $driver->defer(static function () use ($driver, $writer, $suspension, &$results): void {
                $results['while waiting'] = $driver->abortWriteWait((int) $writer, $suspension);
                $suspension->resume();
            });
            $suspension->suspend();

            $driver->awaitWritable($writer, $suspension);
            $suspension->suspend();
            $results['after readiness'] = $driver->abortWriteWait((int) $writer, $suspension);
        });
        $driver->delay(0.003, static function () use ($reader): void {
            self::drain($reader);
        });

        $driver->run();

        self::assertSame(['while waiting' => true, 'after readiness' => false], $results);
    }

    public function testWaitWritableReturnsAtOnceOnAWritableSocketAndOtherwiseOnceThePeerDrainsIt(): void
    {
        $driver = $this->bobbin();
        [$reader, $writer] = self::socketPair();
        $driver->waitWritable($writer, $this->suspension());
        self::assertFalse($driver->isRunning(), 'a writable socket needed no loop');

        self::fillSendBuffer($writer);
        $driver->delay(0.003, static function () use ($reader): void {
            self::drain($reader);
        });
        $started = \hrtime(true);
        $driver->waitWritable($writer, $this->suspension());

        self::assertGreaterThanOrEqual(0.003, self::secondsSince($started));
        self::assertGreaterThan(0, \fwrite($writer, 'more'));
    }

    public function testAStreamWaitedOnDirectlyAndWatchedByACallbackServesBoth(): void
    {
        $driver = $this->bobbin();
        [$reader, $writer] = self::socketPair();
        $log = [];
        $driver->onReadable($reader, static function (string $id) use ($driver, &$log): void {
            $log[] = 'callback';
            $driver->cancel($id);
        });
        $driver->queue(function () use ($driver, $reader, &$log): void {
            $driver->waitReadable($reader, $this->suspension());
            $log[] = 'fiber';
        });
        $driver->delay(0.002, static function () use ($writer): void {
            \fwrite($writer, 'x');
        });

        $driver->run();

        self::assertEqualsCanonicalizing(['callback', 'fiber'], $log);
        self::assertSame('x', \fread($reader, 100), 'neither consumed the data');
    }

    public function testAStreamStillWatchedByACallbackAfterItsWaiterLeft(): void
    {
        $driver = $this->bobbin();
        [$reader, $writer] = self::socketPair();
        $calls = 0;
        $driver->queue(function () use ($driver, $reader, $writer): void {
            \fwrite($writer, 'a');
            $driver->waitReadable($reader, $this->suspension());
            \fread($reader, 1);
        });
        $driver->onReadable($reader, static function (string $id) use ($driver, &$calls): void {
            if (++$calls === 1) {
                return;
            }
            $driver->cancel($id);
        });
        $driver->delay(0.003, static function () use ($writer): void {
            \fwrite($writer, 'b');
        });

        $driver->run();

        self::assertSame(2, $calls, 'the callback saw the second write after the waiter was gone');
    }

    public function testTwoHundredFibersEachWaitingOnItsOwnSocketAllWake(): void
    {
        $driver = $this->bobbin();
        $pairs = [];
        for ($i = 0; $i < 200; $i++) {
            $pairs[] = self::socketPair();
        }
        $received = [];
        foreach ($pairs as $i => [$reader]) {
            $driver->queue(function () use ($driver, $reader, $i, &$received): void {
                $driver->waitReadable($reader, $this->suspension());
                $received[$i] = \fread($reader, 100);
            });
        }
        $driver->delay(0.002, static function () use ($pairs): void {
            foreach (\array_reverse($pairs, true) as $i => [, $writer]) {
                \fwrite($writer, 'msg ' . $i);
            }
        });

        $driver->run();

        self::assertCount(200, $received);
        foreach ($received as $i => $data) {
            self::assertSame('msg ' . $i, $data);
        }
    }

    public function testTimersFireWhileAFiberPollsInline(): void
    {
        $driver = $this->bobbin();
        [$reader, $writer] = self::socketPair();
        $log = [];
        $driver->queue(function () use ($driver, $reader, &$log): void {
            $driver->waitReadable($reader, $this->suspension());
            $log[] = 'reader woke';
        });
        $driver->delay(0.01, static function () use ($writer, &$log): void {
            $log[] = 'timer';
            \fwrite($writer, 'x');
        });
        $started = \hrtime(true);

        $driver->run();

        self::assertSame(['timer', 'reader woke'], $log);
        self::assertLessThan(0.1, self::secondsSince($started));
    }

    public function testAWaitingFiberKeepsRunAliveUntilItsStreamIsReady(): void
    {
        $driver = $this->bobbin();
        [$reader, $writer] = self::socketPair();
        $woke = false;
        $driver->queue(function () use ($driver, $reader, &$woke): void {
            $driver->waitReadable($reader, $this->suspension());
            $woke = true;
        });
        // Unreferenced: only the waiting fiber keeps the loop alive for it.
        $driver->unreference($driver->delay(0.005, static function () use ($writer): void {
            \fwrite($writer, 'x');
        }));

        $driver->run();

        self::assertTrue($woke);
    }

    public function testAPeerClosingItsEndWakesTheReader(): void
    {
        $driver = $this->bobbin();
        [$reader, $writer] = self::socketPair();
        $read = null;
        $driver->queue(function () use ($driver, $reader, &$read): void {
            $driver->waitReadable($reader, $this->suspension());
            $read = \fread($reader, 100);
        });
        $driver->delay(0.002, static function () use ($writer): void {
            \fclose($writer);
        });

        $driver->run();

        self::assertSame('', $read);
        self::assertTrue(\feof($reader));
    }

    public function testAWaitEndedByAnExceptionLeavesTheStreamFreeForTheNextWaiter(): void
    {
        $driver = $this->bobbin();
        [$reader, $writer] = self::socketPair();
        $log = [];
        $driver->queue(function () use ($driver, $reader, &$log): void {
            $suspension = $this->suspension();
            // What a timeout does: withdraw the wait, then throw into the waiter.
            $driver->delay(0.002, static function () use ($driver, $reader, $suspension): void {
                if ($driver->abortReadWait((int) $reader, $suspension)) {
                    $suspension->throw(new \RuntimeException('timed out'));
                }
            });
            try {
                $driver->waitReadable($reader, $suspension);
            } catch (\RuntimeException $e) {
                $log[] = $e->getMessage();
            }
            $driver->waitReadable($reader, $suspension);
            $log[] = 'second wait: ' . \fread($reader, 100);
        });
        $driver->delay(0.004, static function () use ($writer): void {
            \fwrite($writer, 'data');
        });

        $driver->run();

        self::assertSame(['timed out', 'second wait: data'], $log);
    }

    public function testABatchingDriverStillDeliversEveryEventInOrder(): void
    {
        $this->useDriver(new BobbinDriver(static::createPoller(), 0.001, 4));
        $driver = $this->bobbin();
        $pairs = [];
        for ($i = 0; $i < 20; $i++) {
            $pairs[] = self::socketPair();
        }
        $log = [];
        $received = [];
        foreach ($pairs as $i => [$reader]) {
            $driver->queue(function () use ($driver, $reader, $i, &$received): void {
                // Two messages per socket, one wait each; each read takes one message only, so a
                // machine that stalls past the second write still sees them apart.
                foreach (['first ', 'second '] as $message) {
                    $driver->waitReadable($reader, $this->suspension());
                    $received[$i][] = \fread($reader, \strlen($message . $i));
                }
            });
        }
        // Writes spread over several ticks, a few sockets at a time.
        foreach ([0.001, 0.002, 0.003, 0.004] as $t => $delay) {
            $driver->delay($delay, static function () use ($pairs, $t, &$log): void {
                $log[] = 'timer ' . $t;
                foreach ($pairs as $i => [, $writer]) {
                    if ($i % 4 === $t) {
                        \fwrite($writer, 'first ' . $i);
                    }
                }
            });
        }
        $driver->delay(0.008, static function () use ($pairs, &$log): void {
            $log[] = 'second round';
            foreach ($pairs as $i => [, $writer]) {
                \fwrite($writer, 'second ' . $i);
            }
        });
        [$callbackReader, $callbackWriter] = self::socketPair();
        $driver->onReadable($callbackReader, static function (string $id, $stream) use ($driver, &$log): void {
            $log[] = 'callback read ' . \fread($stream, 100);
            $driver->cancel($id);
        });
        $driver->delay(0.006, static function () use ($callbackWriter): void {
            \fwrite($callbackWriter, 'z');
        });
        $started = \hrtime(true);

        $driver->run();

        self::assertContains('callback read z', $log);
        $timers = \array_values(\array_filter($log, static fn (string $entry): bool => $entry !== 'callback read z'));
        self::assertSame(['timer 0', 'timer 1', 'timer 2', 'timer 3', 'second round'], $timers);
        self::assertCount(20, $received);
        foreach ($received as $i => $messages) {
            self::assertSame(['first ' . $i, 'second ' . $i], $messages);
        }
        self::assertLessThan(0.15, self::secondsSince($started));
    }

    /**
     * waitReadable() "suspends the current fiber": a fiber started by {main} (not by the loop)
     * suspends back to main. Its inline poll is only right when the loop would poll next anyway.
     */
    public function testAFiberStartedByMainThatWaitsForDataGivesControlBackToMainAtOnce(): void
    {
        $driver = $this->bobbin();
        [$reader, $writer] = self::socketPair();
        // Some unrelated timer further on (a request timeout, say).
        $timer = $driver->delay(0.05, static function (): void {
        });
        $fiber = new \Fiber(function () use ($driver, $reader): string {
            $driver->waitReadable($reader, $this->suspension());

            return (string) \fread($reader, 100);
        });

        $started = \hrtime(true);
        $fiber->start();
        $blockedFor = self::secondsSince($started);

        $driver->cancel($timer);
        \fwrite($writer, 'ping'); // what main meant to do right after starting the fiber
        $driver->run();
        self::assertSame('ping', $fiber->getReturn());
        self::assertLessThan(
            0.02,
            $blockedFor,
            'Fiber::start() blocked main in a poll instead of returning when the fiber suspended',
        );
    }

    public function testIsReadableNowTellsDataAndEndOfStreamWithoutWaiting(): void
    {
        $driver = $this->bobbin();
        [$reader, $writer] = self::socketPair();

        self::assertFalse($driver->isReadableNow($reader), 'nothing sent yet');
        \fwrite($writer, 'x');
        self::assertTrue($driver->isReadableNow($reader), 'data');
        \fread($reader, 1);
        self::assertFalse($driver->isReadableNow($reader), 'data read');
        \fclose($writer);
        self::assertTrue($driver->isReadableNow($reader), 'end of stream');
        self::assertFalse($driver->isRunning());
    }

    /**
     * Fills $socket's send buffer until a non-blocking write takes nothing more.
     *
     * @param resource $socket
     */
    private static function fillSendBuffer($socket): void
    {
        $chunk = \str_repeat('x', 65536);
        for ($i = 0; $i < 1000; $i++) {
            $written = @\fwrite($socket, $chunk);
            if ($written === false || $written === 0) {
                return;
            }
        }
        self::fail('The send buffer never filled');
    }

    /**
     * Reads everything $socket has buffered right now.
     *
     * @param resource $socket
     */
    private static function drain($socket): void
    {
        while (($data = \fread($socket, 65536)) !== false && $data !== '') {
            // discard
        }
    }
}
