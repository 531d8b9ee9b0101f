<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async\Loop;

use Bobbin\Async\Loop\BobbinDriver;
use Bobbin\Async\Loop\DriverChoice;
use Bobbin\Async\Loop\SelectPoller;
use PHPUnit\Framework\TestCase;
use Revolt\EventLoop\Driver;

/**
 * Which driver and poller the environment asks for (BOBBIN_LOOP_DRIVER) and how the poll
 * batching is configured (BOBBIN_LOOP_BATCH_US, constructor). Only builds drivers, never runs
 * them.
 */
final class DriverChoiceTest extends TestCase
{
    private const VARIABLES = ['BOBBIN_LOOP_DRIVER', 'BOBBIN_LOOP_BATCH_US'];

    /** @var array<string, string|false> */
    private array $saved = [];

    protected function setUp(): void
    {
        foreach (self::VARIABLES as $name) {
            $this->saved[$name] = \getenv($name);
            \putenv($name);
        }
    }

    protected function tearDown(): void
    {
        foreach ($this->saved as $name => $value) {
            \putenv($value === false ? $name : $name . '=' . $value);
        }
    }

    public function testWithoutTheVariableBobbinsDriverIsChosen(): void
    {
        self::assertPoller(SelectPoller::class, DriverChoice::create());
    }

    public function testAnEmptyVariableChoosesBobbinsDriver(): void
    {
        \putenv('BOBBIN_LOOP_DRIVER=');

        self::assertPoller(SelectPoller::class, DriverChoice::create());
    }

    public function testBobbinAndSelectChooseBobbinsDriverOnStreamSelect(): void
    {
        \putenv('BOBBIN_LOOP_DRIVER=bobbin');
        self::assertPoller(SelectPoller::class, DriverChoice::create());

        \putenv('BOBBIN_LOOP_DRIVER=select');
        self::assertPoller(SelectPoller::class, DriverChoice::create());
    }

    public function testRevoltChoosesADriverFromRevoltsFactory(): void
    {
        \putenv('BOBBIN_LOOP_DRIVER=revolt');

        $driver = DriverChoice::create();

        self::assertInstanceOf(Driver::class, $driver);
        self::assertNotInstanceOf(BobbinDriver::class, $driver);
        self::assertStringStartsWith('Revolt\\EventLoop\\Driver\\', $driver::class);
    }

    public function testEachChoiceBuildsANewDriver(): void
    {
        \putenv('BOBBIN_LOOP_DRIVER=bobbin');

        self::assertNotSame(DriverChoice::create(), DriverChoice::create());
    }

    /** @return iterable<string, array{string}> */
    public static function unknownDrivers(): iterable
    {
        yield 'another name' => ['uv'];
        yield 'wrong case' => ['Bobbin'];
        yield 'surrounding space' => [' revolt'];
    }

    #[\PHPUnit\Framework\Attributes\DataProvider('unknownDrivers')]
    public function testAnUnknownDriverNameIsAValueErrorNamingIt(string $value): void
    {
        \putenv('BOBBIN_LOOP_DRIVER=' . $value);

        $this->expectException(\ValueError::class);
        $this->expectExceptionMessage('BOBBIN_LOOP_DRIVER must be "bobbin", "select" or "revolt", got "' . $value . '"');
        DriverChoice::create();
    }

    public function testTheBatchingVariableIsReadInMicrosecondsUpToTenMilliseconds(): void
    {
        foreach (['0', '1', '500', '10000'] as $value) {
            \putenv('BOBBIN_LOOP_BATCH_US=' . $value);
            self::assertInstanceOf(BobbinDriver::class, BobbinDriver::fromEnvironment(new SelectPoller()), $value);
        }

        \putenv('BOBBIN_LOOP_BATCH_US=10001');
        $this->expectException(\ValueError::class);
        $this->expectExceptionMessage('between 0 and 0.01 s');
        BobbinDriver::fromEnvironment(new SelectPoller());
    }

    public function testAnEmptyBatchingVariableTurnsBatchingOff(): void
    {
        \putenv('BOBBIN_LOOP_BATCH_US=');

        self::assertInstanceOf(BobbinDriver::class, BobbinDriver::fromEnvironment(new SelectPoller()));
    }

    /** @return iterable<string, array{string}> */
    public static function malformedBatchDelays(): iterable
    {
        yield 'negative' => ['-5'];
        yield 'fraction' => ['1.5'];
        yield 'unit' => ['500us'];
        yield 'word' => ['off'];
        yield 'space' => [' 500'];
    }

    #[\PHPUnit\Framework\Attributes\DataProvider('malformedBatchDelays')]
    public function testAMalformedBatchingVariableIsAValueErrorNamingIt(string $value): void
    {
        \putenv('BOBBIN_LOOP_BATCH_US=' . $value);

        $this->expectException(\ValueError::class);
        $this->expectExceptionMessage(
            'BOBBIN_LOOP_BATCH_US must be a whole number of microseconds, got "' . $value . '"',
        );
        BobbinDriver::fromEnvironment(new SelectPoller());
    }

    public function testTheBobbinChoiceHonoursTheBatchingVariable(): void
    {
        \putenv('BOBBIN_LOOP_DRIVER=bobbin');
        \putenv('BOBBIN_LOOP_BATCH_US=soon');

        $this->expectException(\ValueError::class);
        $this->expectExceptionMessage('BOBBIN_LOOP_BATCH_US');
        DriverChoice::create();
    }

    /** @return iterable<string, array{float}> */
    public static function invalidBatchDelays(): iterable
    {
        yield 'negative' => [-0.001];
        yield 'above ten milliseconds' => [0.0101];
        yield 'a whole second' => [1.0];
    }

    #[\PHPUnit\Framework\Attributes\DataProvider('invalidBatchDelays')]
    public function testTheConstructorRejectsABatchingDelayOutsideZeroToTenMilliseconds(float $delay): void
    {
        $this->expectException(\ValueError::class);
        new BobbinDriver(new SelectPoller(), $delay);
    }

    public function testTheConstructorAcceptsTheBoundsOfTheBatchingDelay(): void
    {
        self::assertInstanceOf(BobbinDriver::class, new BobbinDriver(new SelectPoller(), 0.0));
        self::assertInstanceOf(BobbinDriver::class, new BobbinDriver(new SelectPoller(), 0.01, 1));
    }

    /** @param class-string $poller */
    private static function assertPoller(string $poller, Driver $driver): void
    {
        self::assertInstanceOf(BobbinDriver::class, $driver);
        self::assertInstanceOf($poller, $driver->poller());
    }
}
