<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async\Loop;

/**
 * BobbinDriver::isIdle(): may the running code block the process without holding anyone up?
 * Only when nothing is watched, queued or due except unreferenced timers.
 */
abstract class IdleContract extends DriverTestCase
{
    public function testAnEmptyLoopIsIdle(): void
    {
        self::assertTrue($this->bobbin()->isIdle());
    }

    public function testAnUnreferencedTimerLeavesTheLoopIdle(): void
    {
        $this->driver->unreference($this->driver->repeat(60.0, static function (): void {
        }));

        self::assertTrue($this->bobbin()->isIdle());
    }

    public function testAReferencedTimerMakesTheLoopBusy(): void
    {
        $this->driver->delay(60.0, static function (): void {
        });

        self::assertFalse($this->bobbin()->isIdle());
    }

    public function testAWatchedStreamMakesTheLoopBusyEvenWhenUnreferenced(): void
    {
        [$reader, $writer] = self::socketPair();
        $id = $this->driver->unreference($this->driver->onReadable($reader, static function (): void {
        }));

        self::assertFalse($this->bobbin()->isIdle());

        $this->driver->cancel($id);
        self::assertTrue($this->bobbin()->isIdle());
        \fclose($writer);
    }

    public function testADisabledStreamWatchLeavesTheLoopIdle(): void
    {
        [$reader, $writer] = self::socketPair();
        $this->driver->disable($this->driver->onReadable($reader, static function (): void {
        }));

        self::assertTrue($this->bobbin()->isIdle());
        \fclose($writer);
    }

    public function testAQueuedMicrotaskOrDeferMakesTheLoopBusy(): void
    {
        $this->driver->queue(static function (): void {
        });
        self::assertFalse($this->bobbin()->isIdle());

        $this->driver->run();
        self::assertTrue($this->bobbin()->isIdle());

        $this->driver->unreference($this->driver->defer(static function (): void {
        }));
        self::assertFalse($this->bobbin()->isIdle());
    }

    public function testAWatchedSignalMakesTheLoopBusy(): void
    {
        $id = $this->driver->unreference($this->driver->onSignal(\SIGUSR2, static function (): void {
        }));

        self::assertFalse($this->bobbin()->isIdle());
        $this->driver->cancel($id);
    }

    public function testAFiberWaitingOnAStreamMakesTheLoopBusyForTheOthers(): void
    {
        [$reader, $writer] = self::socketPair();
        $seenByOther = null;
        $this->driver->queue(function () use ($reader): void {
            $this->bobbin()->waitReadable($reader, $this->suspension());
        });
        $this->driver->queue(function () use (&$seenByOther, $writer): void {
            $seenByOther = $this->bobbin()->isIdle();
            \fwrite($writer, 'x');
        });
        $this->driver->run();

        self::assertFalse($seenByOther);
        self::assertTrue($this->bobbin()->isIdle());
    }
}
