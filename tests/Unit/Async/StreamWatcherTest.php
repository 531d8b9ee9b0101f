<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async;

use Bobbin\Async\Async;
use Bobbin\Async\CancellationSource;
use Bobbin\Async\CancelledException;
use Bobbin\Async\Loop\BobbinDriver;
use Bobbin\Async\StreamClosedException;
use Bobbin\Async\StreamWatcher;
use Bobbin\Async\TimeoutException;
use Revolt\EventLoop;

final class StreamWatcherTest extends AsyncTestCase
{
    public function testOneWatcherServesManyWaitsWithoutACallbackPerWait(): void
    {
        [$server, $client] = $this->socketPair();
        $before = self::loopCallbacks();
        $watcher = new StreamWatcher($server);
        $withWatcher = self::loopCallbacks();
        // Bobbin's driver takes the waits itself; on Revolt's, two callbacks serve every wait.
        self::assertCount(\count($before) + (EventLoop::getDriver() instanceof BobbinDriver ? 0 : 2), $withWatcher);

        $waits = 0;
        $reader = Async::run(static function () use ($watcher, $server, &$waits): string {
            $received = '';
            while (\strlen($received) < 200) {
                $watcher->awaitReadable(5.0);
                $waits++;
                $received .= (string) \fread($server, 8192);
            }

            return $received;
        });
        for ($i = 0; $i < 200; $i++) {
            \fwrite($client, 'x');
            Async::delay(0);
        }

        self::assertSame(\str_repeat('x', 200), $reader->await());
        self::assertGreaterThan(10, $waits);
        self::assertSame($withWatcher, self::loopCallbacks(), 'no callback is left behind by a wait');
        $watcher->close();
        self::assertSame($before, self::loopCallbacks());
    }

    public function testTheWatcherIsOnlyEnabledWhileAFiberWaits(): void
    {
        [$server, $client] = $this->socketPair();
        \fwrite($client, 'pending data');
        $watcher = new StreamWatcher($server);

        foreach (self::loopCallbacks() as $id) {
            self::assertFalse(EventLoop::isEnabled($id), 'an idle watcher costs the poll nothing');
        }
        $watcher->awaitReadable(5.0);
        foreach (self::loopCallbacks() as $id) {
            self::assertFalse(EventLoop::isEnabled($id));
        }
        $watcher->close();
    }

    public function testCloseWakesAWaitingReaderWithStreamClosedException(): void
    {
        [$server, $client] = $this->socketPair();
        $watcher = new StreamWatcher($server);
        $reader = Async::run(static fn () => $watcher->awaitReadable());
        Async::delay(0.005);

        $watcher->close();

        $this->expectException(StreamClosedException::class);
        $reader->await();
    }

    public function testAClosedWatcherRefusesNewWaits(): void
    {
        [$server, $client] = $this->socketPair();
        $watcher = new StreamWatcher($server);
        $watcher->close();
        $watcher->close();

        $this->expectException(StreamClosedException::class);
        $watcher->awaitWritable();
    }

    public function testDroppingTheWatcherRemovesItsLoopCallbacks(): void
    {
        [$server, $client] = $this->socketPair();
        $before = self::loopCallbacks();
        $watcher = new StreamWatcher($server);
        $watcher->awaitWritable(5.0);

        unset($watcher);

        self::assertSame($before, self::loopCallbacks());
    }

    public function testOnlyOneFiberMayWaitToReadAtATime(): void
    {
        [$server, $client] = $this->socketPair();
        $watcher = new StreamWatcher($server);
        $first = Async::run(static fn () => $watcher->awaitReadable(5.0));
        Async::delay(0.005);

        try {
            $watcher->awaitReadable(5.0);
            self::fail('A second reader should be refused');
        } catch (\LogicException $e) {
            self::assertStringContainsString('already waiting', $e->getMessage());
        }
        \fwrite($client, 'x');
        $first->await();
        $watcher->close();
    }

    public function testAReaderAndAWriterWaitOnTheSameStreamTogether(): void
    {
        [$server, $client] = $this->socketPair();
        $watcher = new StreamWatcher($server);
        $reader = Async::run(static function () use ($watcher, $server): string {
            $watcher->awaitReadable(5.0);

            return (string) \fread($server, 100);
        });
        $writer = Async::run(static function () use ($watcher, $server): void {
            $watcher->awaitWritable(5.0);
            \fwrite($server, 'pong');
        });
        $writer->await();
        \fwrite($client, 'ping');

        self::assertSame('ping', $reader->await());
        Async::awaitReadable($client, 5.0);
        self::assertSame('pong', \fread($client, 100));
        $watcher->close();
    }

    public function testATimeoutThrowsAndTheWatcherStaysUsable(): void
    {
        [$server, $client] = $this->socketPair();
        $watcher = new StreamWatcher($server);
        $withWatcher = self::loopCallbacks();

        try {
            $watcher->awaitReadable(0.01);
            self::fail('The wait should have timed out');
        } catch (TimeoutException) {
        }
        self::assertSame($withWatcher, self::loopCallbacks(), 'the timeout timer is gone');
        foreach ($withWatcher as $id) {
            self::assertFalse(EventLoop::isEnabled($id), 'the watcher is idle again');
        }

        \fwrite($client, 'late');
        $watcher->awaitReadable(5.0);
        self::assertSame('late', \fread($server, 100));
        $watcher->close();
    }

    public function testACancellationEndsOnlyTheWaitItWasGivenTo(): void
    {
        [$server, $client] = $this->socketPair();
        $watcher = new StreamWatcher($server);
        $source = new CancellationSource();
        $reader = Async::run(static function () use ($watcher, $server, $source): string {
            $watcher->awaitReadable(5.0, $source);
            $first = (string) \fread($server, 100);
            $source->cancel();
            // The next wait holds no token: the cancellation above must not reach it.
            $watcher->awaitReadable(5.0);

            return $first . (string) \fread($server, 100);
        });
        \fwrite($client, 'one');
        Async::delay(0.01);
        \fwrite($client, 'two');

        self::assertSame('onetwo', $reader->await());

        $cancelled = Async::run(static fn () => $watcher->awaitReadable(5.0, $source));
        $this->expectException(CancelledException::class);
        $cancelled->await();
    }

    public function testAWaitWithoutTimeoutEndsWhenItsCancellationIsRequested(): void
    {
        [$server, $client] = $this->socketPair(); // the client kept open: its close would make the socket readable
        $watcher = new StreamWatcher($server);
        $source = new CancellationSource();
        $reader = Async::run(static fn () => $watcher->awaitReadable(null, $source));
        Async::delay(0.01);
        $source->cancel(new CancelledException('stop waiting'));

        try {
            $reader->await();
            self::fail('The wait went on after its cancellation');
        } catch (CancelledException $e) {
            self::assertSame('stop waiting', $e->getMessage());
        }
        \fclose($client);
    }

    public function testACancellationRequestedAsTheWaitEndsDoesNotReachTheNextWaitUnderAnotherOne(): void
    {
        // The signal pair first: its lower descriptors are reported first by the poll that finds
        // both sockets readable, so the canceller's fiber runs before the reader's.
        [$signalServer, $signalClient] = $this->socketPair();
        [$server, $client] = $this->socketPair();
        $watcher = new StreamWatcher($server);
        $signalWatcher = new StreamWatcher($signalServer);
        $first = new CancellationSource();
        $second = new CancellationSource();
        $reader = Async::run(static function () use ($watcher, $server, $first, $second): string {
            $watcher->awaitReadable(null, $first);
            $one = (string) \fread($server, 100);
            $watcher->awaitReadable(null, $second);

            return $one . (string) \fread($server, 100);
        });
        $canceller = Async::run(static function () use ($signalWatcher, $signalServer, $first): void {
            $signalWatcher->awaitReadable();
            \fread($signalServer, 100);
            // Readiness has already resumed the reader's first wait (it runs next): its
            // cancellation's callback, queued now, comes late and must not end the second wait,
            // which runs under another cancellation.
            $first->cancel();
        });
        Async::delay(0.01);
        \fwrite($signalClient, 'x');
        \fwrite($client, 'one');
        Async::delay(0.02);
        \fwrite($client, 'two');

        $canceller->await();
        self::assertSame('onetwo', $reader->await());
        \fclose($signalClient);
    }

    public function testAWatcherFirstUsedByAFiberThatHasEndedStillWakesMain(): void
    {
        [$server, $client] = $this->socketPair();
        $watcher = new StreamWatcher($server);
        // A task waits once on the watcher and ends: its fiber is gone, its suspension may linger.
        $task = Async::run(static function () use ($watcher, $server): string {
            $watcher->awaitReadable();

            return (string) \fread($server, 10);
        });
        Async::run(static fn () => \fwrite($client, 'one'))->await();
        self::assertSame('one', $task->await());
        unset($task);
        \gc_collect_cycles();

        // Now {main} waits on the same watcher: it must be woken, not a dead fiber.
        Async::run(static function () use ($client): void {
            Async::delay(0.01);
            \fwrite($client, 'two');
        });
        $watcher->awaitReadable();
        self::assertSame('two', \fread($server, 10));
    }
}
