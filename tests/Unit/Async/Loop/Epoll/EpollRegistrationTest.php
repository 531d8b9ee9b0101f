<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async\Loop\Epoll;

use Bobbin\Async\Loop\EpollPoller;
use Bobbin\Async\Loop\LinuxEpoll;
use Bobbin\Async\Loop\Poller;
use Bobbin\Async\Loop\StreamDescriptors;
use Bobbin\Async\StreamClosedException;
use Bobbin\Tests\Unit\Async\Loop\DriverTestCase;

/**
 * What epoll adds to the contract: interest registered once per stream, not per wait; streams
 * PHP closes behind the loop's back, including descriptor numbers the kernel reuses at once and
 * descriptors a duplicate keeps alive; descriptors epoll refuses.
 */
final class EpollRegistrationTest extends DriverTestCase
{
    private static ?LinuxEpoll $epoll = null;

    protected static function createPoller(): Poller
    {
        return new EpollPoller(self::$epoll = new LinuxEpoll(), StreamDescriptors::instance());
    }

    public function testAFiberWaitingAgainAndAgainOnOneStreamRegistersItOnce(): void
    {
        $driver = $this->bobbin();
        [$reader, $writer] = self::socketPair();
        $received = '';
        $driver->queue(function () use ($driver, $reader, &$received): void {
            while (\strlen($received) < 100) {
                $driver->waitReadable($reader, $this->suspension());
                $received .= \fread($reader, 1);
            }
        });
        $driver->repeat(0, static function (string $id) use ($driver, $writer, &$received): void {
            \strlen($received) < 100 ? \fwrite($writer, 'x') : $driver->cancel($id);
        });

        $driver->run();

        self::assertSame(100, \strlen($received));
        self::assertSame(1, self::$epoll?->controlCalls, 'one epoll_ctl() for 100 waits');
    }

    public function testAnEventNobodyWantsAnyMoreNarrowsTheRegistrationOnce(): void
    {
        $driver = $this->bobbin();
        [$reader, $writer] = self::socketPair();
        \fwrite($writer, 'x');
        $driver->waitReadable($reader, $this->suspension()); // armed, and left armed after the wait
        $ticks = 0;
        $driver->repeat(0, static function (string $id) use ($driver, &$ticks): void {
            if (++$ticks === 20) {
                $driver->cancel($id);
            }
        });
        $keepPolling = $driver->unreference($driver->onWritable($writer, static function (): void {
        }));

        $driver->run(); // the unread byte keeps the reader ready: only the first poll hears of it
        $driver->cancel($keepPolling);

        self::assertSame(3, self::$epoll?->controlCalls, 'ADD reader, ADD writer, DEL reader');
    }

    public function testAStreamClosedWhileWatchedLeavesNothingToTheNextStreamOnItsNumber(): void
    {
        $driver = $this->bobbin();
        [$closed, $closedPeer] = self::socketPair();
        $number = StreamDescriptors::instance()->numberOf($closed);
        $calls = [];
        $stale = $driver->onReadable($closed, static function () use (&$calls): void {
            $calls[] = 'closed stream';
        });
        \fclose($closed); // behind the loop's back, its callback still enabled
        \fclose($closedPeer);

        [$reader, $writer] = self::socketPair();
        self::assertSame($number, StreamDescriptors::instance()->numberOf($reader), 'the kernel reused the number');
        \fwrite($writer, 'new');
        $driver->waitReadable($reader, $this->suspension());
        self::assertSame('new', \fread($reader, 10));

        $driver->cancel($stale);
        \fwrite($writer, 'again');
        $driver->waitReadable($reader, $this->suspension());
        self::assertSame('again', \fread($reader, 10), 'cancelling the old callback did not unregister the new stream');
        self::assertSame([], $calls);
    }

    /** @return iterable<string, array{bool}> */
    public static function callbackStates(): iterable
    {
        yield 'its callback still enabled' => [false];
        yield 'its callback cancelled before the close (a worker that stops accepting)' => [true];
    }

    #[\PHPUnit\Framework\Attributes\DataProvider('callbackStates')]
    public function testAClosedStreamWhoseDescriptorADuplicateKeepsOpenNeitherRunsNorSpins(bool $cancelFirst): void
    {
        $driver = $this->bobbin();
        [$closed, $peer] = self::socketPair();
        $duplicate = \fopen('php://fd/' . StreamDescriptors::instance()->numberOf($closed), 'r');
        self::assertIsResource($duplicate);
        $calls = 0;
        $id = $driver->unreference($driver->onReadable($closed, static function () use (&$calls): void {
            $calls++;
        }));
        if ($cancelFirst) {
            $driver->cancel($id); // its registration stays armed (lazily) in the kernel
        }
        \fclose($closed); // epoll keeps the registration: the duplicate holds the socket open
        \fwrite($peer, 'readable for ever');
        [$reader, $writer] = self::socketPair(); // something else watched, so the loop polls
        $driver->unreference($driver->onReadable($reader, static function (): void {
        }));

        $cpuBefore = self::cpuSeconds();
        $driver->delay(0.05, static function (): void {
        });
        $driver->run();
        $cpu = self::cpuSeconds() - $cpuBefore;

        self::assertSame(0, $calls);
        self::assertLessThan(0.012, $cpu, 'the loop spun on the closed stream\'s readiness');
        \fclose($duplicate);
        \fclose($writer);
    }

    public function testARegularFileIsAlwaysReadyAsStreamSelectSays(): void
    {
        $driver = $this->bobbin();
        $file = \fopen(__FILE__, 'r');
        self::assertIsResource($file);
        $read = null;
        $driver->onReadable($file, static function (string $id, $stream) use ($driver, &$read): void {
            $read = \fread($stream, 5);
            $driver->cancel($id);
        });

        $driver->run();

        self::assertSame('<?php', $read);
        \fclose($file);
    }

    public function testAClosedStreamIsRefusedWhenAWaitStarts(): void
    {
        [$reader] = self::socketPair();
        \fclose($reader);

        $this->expectException(StreamClosedException::class);
        $this->bobbin()->waitReadable($reader, $this->suspension());
    }

    public function testAStreamWithoutADescriptorIsRefusedWhenItsCallbackIsCreated(): void
    {
        $memory = \fopen('php://memory', 'r');

        $this->expectException(\ValueError::class);
        $this->expectExceptionMessage('no descriptor to poll');
        $this->driver->onReadable($memory, static function (): void {
        });
    }

    public function testTwoStreamResourcesOnOneDescriptorAreBothServed(): void
    {
        $driver = $this->bobbin();
        [$reader, $writer] = self::socketPair();
        $socket = \socket_import_stream($reader);
        self::assertInstanceOf(\Socket::class, $socket);
        $second = \socket_export_stream($socket);
        $log = [];
        foreach (['first' => $reader, 'second' => $second] as $name => $stream) {
            $driver->onReadable($stream, static function (string $id) use ($driver, $name, &$log): void {
                $log[] = $name;
                $driver->cancel($id);
            });
        }
        \fwrite($writer, 'x');

        $driver->run();

        self::assertEqualsCanonicalizing(['first', 'second'], $log);
    }

    private static function cpuSeconds(): float
    {
        $usage = \getrusage();

        return $usage['ru_utime.tv_sec'] + $usage['ru_utime.tv_usec'] / 1e6 + $usage['ru_stime.tv_sec'] + $usage['ru_stime.tv_usec'] / 1e6;
    }
}
