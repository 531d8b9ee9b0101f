<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async\Loop\Epoll;

use Bobbin\Async\Loop\EpollPoller;
use Bobbin\Async\Loop\Poller;
use Bobbin\Tests\Unit\Async\Loop\DriverTestCase;

/**
 * BobbinDriver::stayedQuietSince() on epoll: what lets a pool take the loop's word that an idle
 * connection's socket has nothing to say instead of peeking at it. Epoll keeps a stream armed
 * after its last wait; the loop knows the stream was quiet only through a poll made after the
 * mark, with the stream armed from before it, and the first event nobody wanted ends that.
 */
final class EpollQuietStreamTest extends DriverTestCase
{
    private const ANY_AGE = 60.0;

    protected static function createPoller(): Poller
    {
        return EpollPoller::create();
    }

    public function testAStreamLeftArmedAfterItsLastWaitIsQuietOnceALaterPollFoundNothingOnIt(): void
    {
        [$reader, $writer] = $this->streamAfterOneWait(); // $writer kept: its close would reach $reader
        $mark = $this->bobbin()->waits();

        self::assertFalse($this->bobbin()->stayedQuietSince((int) $reader, $mark, self::ANY_AGE), 'no poll since the mark');
        $this->pollOnce();

        self::assertTrue($this->bobbin()->stayedQuietSince((int) $reader, $mark, self::ANY_AGE));
    }

    public function testAPollOlderThanTheAgeAskedForIsNotTakenForQuiet(): void
    {
        [$reader, $writer] = $this->streamAfterOneWait();
        $mark = $this->bobbin()->waits();
        $this->pollOnce();
        \usleep(5_000);

        self::assertFalse($this->bobbin()->stayedQuietSince((int) $reader, $mark, 0.004));
        self::assertTrue($this->bobbin()->stayedQuietSince((int) $reader, $mark, self::ANY_AGE));
    }

    public function testAStreamOnWhichDataArrivedAfterTheMarkIsNotQuiet(): void
    {
        [$reader, $writer] = $this->streamAfterOneWait();
        $mark = $this->bobbin()->waits();
        \fwrite($writer, 'late');
        $this->pollOnce(); // the event nobody wants disarms the stream
        $this->pollOnce();

        self::assertFalse($this->bobbin()->stayedQuietSince((int) $reader, $mark, self::ANY_AGE));
        self::assertSame('late', \fread($reader, 10), 'the data is left for whoever reads next');
    }

    public function testAStreamWhosePeerClosedItAfterTheMarkIsNotQuiet(): void
    {
        [$reader, $writer] = $this->streamAfterOneWait();
        $mark = $this->bobbin()->waits();
        \fclose($writer);
        $this->pollOnce();

        self::assertFalse($this->bobbin()->stayedQuietSince((int) $reader, $mark, self::ANY_AGE));
    }

    public function testAMarkTakenBeforeTheStreamWasFirstWaitedOnSaysNothing(): void
    {
        $mark = $this->bobbin()->waits();
        [$reader, $writer] = $this->streamAfterOneWait();
        $this->pollOnce();

        self::assertFalse($this->bobbin()->stayedQuietSince((int) $reader, $mark, self::ANY_AGE));
    }

    public function testAStreamNobodyEverWaitedOnIsNotKnown(): void
    {
        [$reader, $writer] = self::socketPair();
        $mark = $this->bobbin()->waits();
        $this->pollOnce();

        self::assertFalse($this->bobbin()->stayedQuietSince((int) $reader, $mark, self::ANY_AGE));
    }

    /**
     * A socket pair whose reader a fiber waited on once, for a byte written while it waited:
     * left armed for reading, as a database connection is after its statement's answer.
     *
     * @return array{resource, resource}
     */
    private function streamAfterOneWait(): array
    {
        $driver = $this->bobbin();
        [$reader, $writer] = self::socketPair();
        $received = '';
        $driver->queue(function () use ($driver, $reader, &$received): void {
            $driver->waitReadable($reader, $this->suspension());
            $received = \fread($reader, 10);
        });
        $driver->defer(static function () use ($writer): void {
            \fwrite($writer, 'x');
        });
        $driver->run();
        self::assertSame('x', $received);

        return [$reader, $writer];
    }

    /** Runs the loop through one poll of streams (another stream is watched, so the loop polls). */
    private function pollOnce(): void
    {
        $driver = $this->bobbin();
        [$silent, $silentPeer] = self::socketPair();
        $watch = $driver->unreference($driver->onReadable($silent, static function (): void {
        }));
        $waitsBefore = $driver->waits();
        $driver->delay(0.001, static function (): void {
        });
        $driver->run();
        $driver->cancel($watch);
        self::assertGreaterThan($waitsBefore, $driver->waits(), 'the loop polled');
        \fclose($silentPeer);
    }
}
