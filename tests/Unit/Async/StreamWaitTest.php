<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async;

use Bobbin\Async\Async;
use Bobbin\Async\CancellationSource;
use Bobbin\Async\CancelledException;
use Bobbin\Async\Loop\BobbinDriver;
use Bobbin\Async\TimeoutException;
use Revolt\EventLoop;

/** Async::awaitReadable / Async::awaitWritable: one-off readiness waits. */
final class StreamWaitTest extends AsyncTestCase
{
    public function testAReaderResumesWhenDataArrivesAndNotBefore(): void
    {
        [$reader, $writer] = $this->socketPair();
        $written = false;
        $task = Async::run(static function () use ($reader, &$written): string {
            Async::awaitReadable($reader, 5.0);
            self::assertTrue($written, 'resumed before any data was written');

            return (string) \fread($reader, 100);
        });

        Async::delay(0.02);
        self::assertFalse($task->isComplete(), 'nothing to read yet, so the reader still waits');

        $written = true;
        \fwrite($writer, 'hello');

        self::assertSame('hello', $task->await());
    }

    public function testAReadTimeoutThrowsAndLeavesNoWatcher(): void
    {
        [$reader, $writer] = $this->socketPair();
        $before = self::loopCallbacks();

        $started = \hrtime(true);
        try {
            Async::run(static fn () => Async::awaitReadable($reader, 0.02))->await();
            self::fail('The wait should have timed out');
        } catch (TimeoutException $e) {
            self::assertStringContainsString('readable', $e->getMessage());
        }

        self::assertGreaterThanOrEqual(0.019, (\hrtime(true) - $started) / 1e9);
        self::assertSame($before, self::loopCallbacks());
    }

    public function testACancelledWaitThrowsAndLeavesNoWatcher(): void
    {
        [$reader, $writer] = $this->socketPair();
        $source = new CancellationSource();
        $before = self::loopCallbacks();
        $waiter = Async::run(static fn () => Async::awaitReadable($reader, null, $source));
        Async::delay(0.005);
        self::assertNotSame($before, self::loopCallbacks(), 'the waiter registered a watcher');

        $source->cancel();
        try {
            $waiter->await();
            self::fail('The wait should have been cancelled');
        } catch (CancelledException $e) {
            self::assertNotInstanceOf(TimeoutException::class, $e);
        }

        self::assertSame($before, self::loopCallbacks());
    }

    public function testAnAlreadyCancelledTokenThrowsBeforeWaiting(): void
    {
        [$reader, $writer] = $this->socketPair();
        $source = new CancellationSource();
        $source->cancel();

        $this->expectException(CancelledException::class);
        Async::awaitReadable($reader, 5.0, $source);
    }

    public function testAFreshSocketIsWritableAtOnce(): void
    {
        [, $writer] = $this->socketPair();

        Async::awaitWritable($writer, 5.0);

        self::assertSame([], self::loopCallbacks());
    }

    public function testAWriterWaitsWhileTheSendBufferIsFullAndResumesWhenItDrains(): void
    {
        [$reader, $writer] = $this->socketPair();
        $queued = self::fillSendBuffer($writer);

        try {
            Async::awaitWritable($writer, 0.02);
            self::fail('A full socket should not be writable');
        } catch (TimeoutException $e) {
            self::assertStringContainsString('writable', $e->getMessage());
        }

        $drainer = Async::run(static function () use ($reader, $queued): void {
            Async::delay(0.005);
            $drained = 0;
            while ($drained < $queued) {
                Async::awaitReadable($reader, 5.0);
                $drained += \strlen((string) \fread($reader, 65536));
            }
        });
        Async::awaitWritable($writer, 5.0);
        $drainer->await();

        self::assertSame([], self::loopCallbacks());
    }

    /**
     * @param resource $socket
     * @return int bytes written
     */
    private static function fillSendBuffer($socket): int
    {
        $chunk = \str_repeat('x', 65536);
        $total = 0;
        while (($written = @\fwrite($socket, $chunk)) > 0) {
            $total += $written;
        }

        return $total;
    }

    public function testAnIdleLoopLetsAWaitSleepInPlaceUntilTheStreamIsReadable(): void
    {
        $child = \proc_open(['sh', '-c', 'sleep 0.1; echo late'], [1 => ['pipe', 'w']], $pipes);
        self::assertIsResource($child);
        \stream_set_blocking($pipes[1], false);

        $started = \microtime(true);
        $slept = Async::awaitReadableIfIdle($pipes[1]);
        $elapsed = \microtime(true) - $started;

        if (!EventLoop::getDriver() instanceof BobbinDriver) {
            self::assertFalse($slept, 'only Bobbin\'s driver can tell that it is idle');
            self::assertLessThan(0.05, $elapsed);
        } else {
            self::assertTrue($slept);
            self::assertGreaterThan(0.05, $elapsed);
        }
        \stream_set_blocking($pipes[1], true); // the child's line, before the pipe closes under it
        self::assertSame("late\n", \stream_get_contents($pipes[1]));
        \fclose($pipes[1]);
        \proc_close($child);
    }

    public function testALoopWithOtherWorkMakesTheIdleWaitReturnAtOnce(): void
    {
        [$reader] = $this->socketPair();
        $timer = EventLoop::delay(1.0, static function (): void {
        });

        $started = \microtime(true);
        self::assertFalse(Async::awaitReadableIfIdle($reader));
        self::assertLessThan(0.05, \microtime(true) - $started);
        EventLoop::cancel($timer);
    }
}
