<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async;

use Bobbin\Async\Async;
use Bobbin\Async\EndOfTurnWriter;
use Bobbin\Async\StreamWatcher;
use Revolt\EventLoop;

final class EndOfTurnWriterTest extends AsyncTestCase
{
    public function testWhatIsAskedDuringOneTurnLeavesInOneWriteAtItsEnd(): void
    {
        [$ours, $theirs] = self::pair();
        $writer = new EndOfTurnWriter(static fn () => null);
        $writer->attach($ours, new StreamWatcher($ours));
        $writer->write('a', true);
        $writer->write('b');
        $writer->append('c');
        self::assertSame('', (string) \fread($theirs, 100));
        EventLoop::run();
        self::assertSame('abc', \fread($theirs, 100));
    }

    public function testAWriterAttachedWithNothingQueuedLeavesNothingOnTheLoop(): void
    {
        // A script's first wait can then still sleep in one blocking select (Async::awaitReadableIfIdle()).
        [$ours] = self::pair();
        $writer = new EndOfTurnWriter(static fn () => null);
        $writer->attach($ours, new StreamWatcher($ours));
        self::assertSame([], Async::loopCallbacks());
    }

    public function testAWithdrawnEntryIsNeverSent(): void
    {
        [$ours, $theirs] = self::pair();
        $writer = new EndOfTurnWriter(static fn () => null);
        $writer->attach($ours, new StreamWatcher($ours));
        $writer->append('one');
        $writer->append('two', 7);
        $writer->withdraw('one');
        $writer->forget(7);
        $writer->append('three');
        EventLoop::run();
        self::assertSame('three', \fread($theirs, 100));
    }

    public function testWithdrawSaysWhetherTheBytesWereTakenBackOrHadLeft(): void
    {
        [$ours, $theirs] = self::pair();
        $writer = new EndOfTurnWriter(static fn () => null);
        $writer->attach($ours, new StreamWatcher($ours));
        $writer->write('sent'); // nothing pending: written at once
        $writer->append('queued');

        self::assertFalse($writer->withdraw('sent'), 'on the socket already: a cancelled request that left');
        self::assertTrue($writer->withdraw('queued'), 'still queued: never sent');
        EventLoop::run();
        self::assertSame('sent', \fread($theirs, 100));
    }

    public function testWhatTheKernelDidNotTakeIsWrittenWhenTheSocketDrains(): void
    {
        [$ours, $theirs] = self::pair();
        $writer = new EndOfTurnWriter(static fn () => null);
        $writer->attach($ours, new StreamWatcher($ours));
        $payload = \str_repeat('x', 4_000_000);
        $writer->write($payload);
        self::assertGreaterThan(0, $writer->pendingBytes());
        $received = '';
        EventLoop::onReadable($theirs, static function (string $id) use ($theirs, &$received, $payload): void {
            $received .= (string) \fread($theirs, 1_000_000);
            if (\strlen($received) >= \strlen($payload)) {
                EventLoop::cancel($id);
            }
        });
        EventLoop::run();
        self::assertSame($payload, $received);
        self::assertTrue($writer->isEmpty());
    }

    /** @return array{resource, resource} */
    private static function pair(): array
    {
        $pair = \stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, 0);
        self::assertNotFalse($pair);
        \stream_set_blocking($pair[0], false);
        \stream_set_blocking($pair[1], false);

        return [$pair[0], $pair[1]];
    }
}
