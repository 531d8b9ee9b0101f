<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async\Loop;

use Bobbin\Async\Loop\BobbinDriver;
use Bobbin\Async\Loop\DriverChoice;
use Bobbin\Async\Loop\EpollPoller;
use Bobbin\Async\Loop\EpollUnavailableException;
use Bobbin\Async\Loop\SelectPoller;
use PHPUnit\Framework\TestCase;
use Revolt\EventLoop\Driver;

/**
 * Which driver and poller the environment asks for (BOBBIN_LOOP_DRIVER) and how the poll
 * batching is configured (BOBBIN_LOOP_BATCH_US, constructor). Only builds drivers, never runs
 * them. The automatic choice is epoll wherever it works (Linux, FFI allowed in the CLI).
 */
final class DriverChoiceTest extends TestCase
{
    private const VARIABLES = ['BOBBIN_LOOP_DRIVER', 'BOBBIN_LOOP_BATCH_US', 'BOBBIN_LOOP_LATE_MS'];

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

    public function testWithoutTheVariableBobbinsDriverPollsWithEpollWhereItWorks(): void
    {
        self::assertPoller(self::automaticPoller(), DriverChoice::create());
    }

    public function testAnEmptyVariableIsTheAutomaticChoice(): void
    {
        \putenv('BOBBIN_LOOP_DRIVER=');

        self::assertPoller(self::automaticPoller(), DriverChoice::create());
    }

    public function testBobbinIsTheAutomaticChoiceKeptForCompatibility(): void
    {
        \putenv('BOBBIN_LOOP_DRIVER=bobbin');

        self::assertPoller(self::automaticPoller(), DriverChoice::create());
    }

    public function testEpollAndSelectChooseBobbinsDriverOnThatPoller(): void
    {
        if (self::automaticPoller() === EpollPoller::class) {
            \putenv('BOBBIN_LOOP_DRIVER=epoll');
            self::assertPoller(EpollPoller::class, DriverChoice::create());
        }

        \putenv('BOBBIN_LOOP_DRIVER=select');
        self::assertPoller(SelectPoller::class, DriverChoice::create());
    }

    public function testWhereFfiIsNotAllowedTheAutomaticChoicePollsWithSelectAndEpollFailsClearly(): void
    {
        $script = 'require "vendor/autoload.php"; Bobbin\Async\Async::installLoopDriver(); $d = Revolt\EventLoop::getDriver(); echo $d instanceof Bobbin\Async\Loop\BobbinDriver ? $d->poller()::class : $d::class;';
        $automatic = self::runPhp(['-d', 'ffi.enable=0', '-r', $script], '');
        self::assertSame(SelectPoller::class, $automatic);

        $forced = self::runPhp(['-d', 'ffi.enable=0', '-r', $script], 'epoll');
        self::assertStringContainsString('EpollUnavailableException', $forced);
        self::assertStringContainsString('ffi.enable', $forced);
    }

    public function testLoadingTheAutoloaderLeavesTheLoopDriverOfTheProgramAlone(): void
    {
        $script = 'require "vendor/autoload.php"; echo Revolt\EventLoop::getDriver()::class;';

        self::assertStringStartsWith('Revolt\\EventLoop\\Driver\\', self::runPhp(['-r', $script], ''));
    }

    public function testTheDocumentedCallInstallsBobbinsDriverOnceAndASecondCallKeepsIt(): void
    {
        $script = 'require "vendor/autoload.php"; Bobbin\Async\Async::installLoopDriver(); $first = Revolt\EventLoop::getDriver();'
            . ' Bobbin\Async\Async::installLoopDriver(); echo $first::class, " ", $first === Revolt\EventLoop::getDriver() ? "kept" : "replaced";';

        self::assertSame(BobbinDriver::class . ' kept', self::runPhp(['-r', $script], ''));
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
        yield 'the poll() system call' => ['poll'];
        yield 'surrounding space' => [' revolt'];
    }

    #[\PHPUnit\Framework\Attributes\DataProvider('unknownDrivers')]
    public function testAnUnknownDriverNameIsAValueErrorNamingIt(string $value): void
    {
        \putenv('BOBBIN_LOOP_DRIVER=' . $value);

        $this->expectException(\ValueError::class);
        $this->expectExceptionMessage('BOBBIN_LOOP_DRIVER must be "bobbin", "epoll", "select" or "revolt", got "' . $value . '"');
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

    #[\PHPUnit\Framework\Attributes\DataProvider('malformedBatchDelays')]
    public function testAMalformedLatenessVariableIsAValueErrorNamingIt(string $value): void
    {
        \putenv('BOBBIN_LOOP_LATE_MS=' . $value);

        $this->expectException(\ValueError::class);
        $this->expectExceptionMessage('BOBBIN_LOOP_LATE_MS must be a whole number of milliseconds, got "' . $value . '"');
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

    /** @return class-string what the automatic choice must be here: epoll if it can be built */
    private static function automaticPoller(): string
    {
        try {
            EpollPoller::create();

            return EpollPoller::class;
        } catch (EpollUnavailableException) {
            return SelectPoller::class;
        }
    }

    /** @param class-string $poller */
    private static function assertPoller(string $poller, Driver $driver): void
    {
        self::assertInstanceOf(BobbinDriver::class, $driver);
        self::assertInstanceOf($poller, $driver->poller());
    }

    /**
     * Runs PHP with $arguments in the project's root, BOBBIN_LOOP_DRIVER set to $driver; returns
     * what it printed, standard error included.
     *
     * @param list<string> $arguments
     */
    private static function runPhp(array $arguments, string $driver): string
    {
        $process = \proc_open(
            [\PHP_BINARY, ...$arguments],
            [1 => ['pipe', 'w'], 2 => ['redirect', 1]],
            $pipes,
            \dirname(__DIR__, 4),
            ['BOBBIN_LOOP_DRIVER' => $driver, 'PATH' => (string) \getenv('PATH')],
        );
        self::assertIsResource($process);
        $output = (string) \stream_get_contents($pipes[1]);
        \fclose($pipes[1]);
        \proc_close($process);

        return \trim($output);
    }
}
