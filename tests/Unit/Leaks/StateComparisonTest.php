<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Leaks;

use Bobbin\Leaks\Leak;
use Bobbin\Leaks\LeakKind;
use Bobbin\Leaks\ProcessState;
use Bobbin\Leaks\StateComparison;
use PHPUnit\Framework\TestCase;

final class StateComparisonTest extends TestCase
{
    private const OWN = '/srv/bobbin/src/';

    public function testIdenticalStatesLeaveNothing(): void
    {
        self::assertSame([], StateComparison::leaks(self::state(), self::state(), self::OWN));
    }

    public function testEachDifferenceIsOneLeakOfItsKind(): void
    {
        $after = self::state(
            statics: ['App\\Cart::$items' => 'changed', 'App\\Late::$x' => 'new'],
            globals: ['user' => 'u1', 'config' => 'c2'],
            ini: ['precision' => '10'],
            timezone: 'Asia/Tokyo',
            locale: 'C.UTF-8',
            outputBuffers: 2,
            callbacks: ['w1' => self::OWN . 'Http/Server.php:10', 'w9' => '/app/Job.php:7', 'w10' => self::OWN . 'Pool/Pool.php:3'],
            pools: ['pg' => [2, 1]],
        );

        $leaks = StateComparison::leaks(self::state(), $after, self::OWN);

        self::assertEquals([
            new Leak(LeakKind::StaticProperty, 'App\\Cart::$items'),
            new Leak(LeakKind::GlobalVariable, '$user', 'set'),
            new Leak(LeakKind::GlobalVariable, '$config', 'changed'),
            new Leak(LeakKind::IniSetting, 'precision', "'14' → '10'"),
            new Leak(LeakKind::Timezone, 'date_default_timezone_set()', 'UTC → Asia/Tokyo'),
            new Leak(LeakKind::Locale, 'setlocale()', 'C → C.UTF-8'),
            new Leak(LeakKind::OutputBuffer, 'ob_start()', '1 left open'),
            new Leak(LeakKind::LoopCallback, '/app/Job.php:7'),
            new Leak(LeakKind::PoolConnection, 'pg', '2 not given back'),
            new Leak(LeakKind::OpenTransaction, 'pg', '1 connection(s) given back inside a transaction'),
        ], $leaks);
    }

    public function testWhatARequestUndidIsNoLeak(): void
    {
        $before = self::state(outputBuffers: 2, callbacks: ['w1' => '/app/a.php:1', 'w2' => '/app/b.php:2'], pools: ['pg' => [1, 0]]);
        $after = self::state(outputBuffers: 1, callbacks: ['w1' => '/app/a.php:1'], pools: ['pg' => [0, 0]]);

        self::assertSame([], StateComparison::leaks($before, $after, self::OWN));
    }

    /**
     * @param array<string, string> $statics
     * @param array<string, string> $globals
     * @param array<string, string|null> $ini
     * @param array<string, string> $callbacks
     * @param array<string, array{int, int}> $pools
     */
    private static function state(
        array $statics = ['App\\Cart::$items' => 'empty'],
        array $globals = ['config' => 'c1'],
        array $ini = ['precision' => '14'],
        string $timezone = 'UTC',
        string $locale = 'C',
        int $outputBuffers = 1,
        array $callbacks = ['w1' => self::OWN . 'Http/Server.php:10'],
        array $pools = ['pg' => [0, 0]],
    ): ProcessState {
        return new ProcessState($statics, $globals, $ini, $timezone, $locale, $outputBuffers, $callbacks, $pools);
    }
}
