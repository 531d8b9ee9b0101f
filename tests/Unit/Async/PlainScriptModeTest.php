<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async;

use Bobbin\Async\Async;
use Bobbin\Async\Loop\BobbinDriver;
use Bobbin\Async\Channel;
use Bobbin\Async\DeferredFuture;
use Bobbin\Async\Future;
use Bobbin\Async\Mutex;
use Bobbin\Async\Semaphore;
use Bobbin\Async\StreamWatcher;
use Bobbin\Async\TimeoutCancellation;
use Bobbin\Async\TimeoutException;
use PHPUnit\Framework\Attributes\DataProvider;
use Revolt\EventLoop;

/**
 * The same calls work from {main} (a plain script, PHP-FPM: every wait runs the loop until it is
 * done) and from inside a task's fiber (every wait suspends only that fiber).
 */
final class PlainScriptModeTest extends AsyncTestCase
{
    /** @return iterable<string, array{bool}> */
    public static function modes(): iterable
    {
        yield 'plain script ({main})' => [false];
        yield 'inside a fiber' => [true];
    }

    #[DataProvider('modes')]
    public function testDelayAndAwaitWork(bool $inFiber): void
    {
        $result = $this->inMode($inFiber, static function (): string {
            Async::delay(0.005);
            $task = Async::run(static function (): string {
                Async::delay(0.005);

                return 'task result';
            });

            return $task->await();
        });

        self::assertSame('task result', $result);
    }

    #[DataProvider('modes')]
    public function testStreamWaitsWork(bool $inFiber): void
    {
        [$a, $b] = $this->socketPair();

        $result = $this->inMode($inFiber, static function () use ($a, $b): string {
            Async::run(static function () use ($b): void {
                Async::delay(0.005);
                \fwrite($b, 'ping');
            });
            Async::awaitReadable($a, 5.0);
            $first = (string) \fread($a, 100);

            $watcher = new StreamWatcher($a);
            \fwrite($b, 'pong');
            $watcher->awaitReadable(5.0);
            $second = (string) \fread($a, 100);
            $watcher->close();

            return $first . $second;
        });

        self::assertSame('pingpong', $result);
    }

    #[DataProvider('modes')]
    public function testSynchronisationPrimitivesWork(bool $inFiber): void
    {
        $result = $this->inMode($inFiber, static function (): array {
            $channel = new Channel(1);
            $semaphore = new Semaphore(1);
            $mutex = new Mutex();
            $lock = $semaphore->acquire();
            Async::run(static function () use ($channel, $lock): void {
                Async::delay(0.005);
                $channel->send('one');
                $channel->send('two');
                $lock->release();
            });

            return [
                $channel->receive(),
                $channel->receive(),
                $semaphore->synchronized(static fn (): string => 'permit'),
                $mutex->synchronized(static fn (): string => 'mutex'),
            ];
        });

        self::assertSame(['one', 'two', 'permit', 'mutex'], $result);
    }

    #[DataProvider('modes')]
    public function testCombinatorsAndTimeoutsWork(bool $inFiber): void
    {
        $result = $this->inMode($inFiber, static function (): array {
            $never = new DeferredFuture();
            try {
                $never->future()->await(new TimeoutCancellation(0.005));
                $timedOut = false;
            } catch (TimeoutException) {
                $timedOut = true;
            }

            return [
                $timedOut,
                Future::awaitAll([Async::run(static fn (): int => 1), Future::complete(2)]),
                Future::awaitAny([$never->future(), Async::run(static fn (): int => 3)]),
                Async::map([4, 5], static fn (int $n): int => $n * 10, 2),
            ];
        });

        self::assertSame([true, [1, 2], 3, [40, 50]], $result);
    }

    /**
     * @template T
     * @param \Closure(): T $scenario
     * @return T
     */
    private function inMode(bool $inFiber, \Closure $scenario): mixed
    {
        return $inFiber ? Async::run($scenario)->await() : $scenario();
    }

    public function testAValueMainAwaitedIsFreedAsSoonAsMainDropsIt(): void
    {
        if (!EventLoop::getDriver() instanceof BobbinDriver) {
            self::markTestSkipped('a promise of Bobbin\'s own driver (FiberScheduler::resumeMain()); Revolt\'s keeps the value until {main} waits again');
        }
        $released = new \ArrayObject();
        $future = Async::run(static function () use ($released): object {
            Async::delay(0.001);

            return new class ($released) {
                public function __construct(private readonly \ArrayObject $released)
                {
                }

                public function __destruct()
                {
                    $this->released[] = true;
                }
            };
        });
        $value = $future->await();
        unset($future, $value);

        // Not held by the loop until {main} waits again (a connection's socket, its mapping).
        self::assertCount(1, $released);
    }
}
