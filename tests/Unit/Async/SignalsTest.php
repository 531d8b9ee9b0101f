<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async;

use Bobbin\Async\Async;
use Bobbin\Async\Signals;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\Attributes\RequiresFunction;
use Revolt\EventLoop;

#[RequiresFunction('posix_kill')]
#[RequiresFunction('pcntl_signal')]
final class SignalsTest extends AsyncTestCase
{
    /** @return iterable<string, array{int}> */
    public static function signals(): iterable
    {
        yield 'SIGINT' => [\SIGINT];
        yield 'SIGTERM' => [\SIGTERM];
        yield 'SIGHUP' => [\SIGHUP];
        yield 'SIGUSR1' => [\SIGUSR1];
    }

    /** The signal is sent before the loop ever ticks: it must be caught, not kill the process. */
    #[DataProvider('signals')]
    public function testAHandlerRunsOnTheLoopWhenTheProcessReceivesTheSignal(int $signal): void
    {
        $received = [];
        $id = Signals::on($signal, static function (int $signo) use (&$received): void {
            $received[] = $signo;
        });

        try {
            \posix_kill(\getmypid(), $signal);
            self::assertSame([], $received, 'the handler waits for the loop, it never interrupts code');
            self::waitUntil(static function () use (&$received): bool {
                return $received !== [];
            });
        } finally {
            Signals::off($id);
        }

        self::assertSame([$signal], $received);
    }

    public function testEveryHandlerOfASignalRunsAndOthersStayQuiet(): void
    {
        $log = [];
        $ids = [
            Signals::on(\SIGHUP, static function () use (&$log): void {
                $log[] = 'reload A';
            }),
            Signals::on(\SIGHUP, static function () use (&$log): void {
                $log[] = 'reload B';
            }),
            Signals::on(\SIGUSR2, static function () use (&$log): void {
                $log[] = 'usr2';
            }),
        ];

        try {
            \posix_kill(\getmypid(), \SIGHUP);
            self::waitUntil(static function () use (&$log): bool {
                return \count($log) >= 2;
            });
            Async::delay(0.01);
        } finally {
            \array_map(Signals::off(...), $ids);
        }

        self::assertSame(['reload A', 'reload B'], $log);
    }

    public function testRemovingTheOnlyHandlerRestoresTheDefaultAction(): void
    {
        $before = \pcntl_signal_get_handler(\SIGUSR2);
        $id = Signals::on(\SIGUSR2, static function (): void {
        });
        Signals::off($id);
        self::assertSame($before, \pcntl_signal_get_handler(\SIGUSR2), 'removed before the loop ticked');

        $id = Signals::on(\SIGUSR2, static function (): void {
        });
        Async::delay(0.001);
        Signals::off($id);
        self::assertSame(\SIG_DFL, \pcntl_signal_get_handler(\SIGUSR2), 'removed after the loop installed its handler');
    }

    public function testAHandlerAloneDoesNotKeepTheLoopAlive(): void
    {
        $id = Signals::on(\SIGUSR1, static function (): void {
        });
        $started = \hrtime(true);

        try {
            EventLoop::run();
        } finally {
            Signals::off($id);
        }

        self::assertLessThan(5.0, (\hrtime(true) - $started) / 1e9);
    }

    public function testAnExceptionInAHandlerIsReportedAndTheLoopGoesOn(): void
    {
        $id = Signals::on(\SIGUSR1, static function (): never {
            throw new \DomainException('handler failed');
        });

        try {
            \posix_kill(\getmypid(), \SIGUSR1);
            self::waitUntil(fn (): bool => $this->reported !== []);
        } finally {
            Signals::off($id);
        }

        $reported = $this->takeReported();
        self::assertCount(1, $reported);
        self::assertSame('handler failed', $reported[0][0]->getMessage());
    }

    /** Lets the loop run until $condition holds; a generous bound keeps a loaded machine green. */
    private static function waitUntil(\Closure $condition): void
    {
        $deadline = \hrtime(true) + 5_000_000_000;
        while (!$condition()) {
            self::assertLessThan($deadline, \hrtime(true), 'gave up waiting for the signal');
            Async::delay(0.001);
        }
    }
}
