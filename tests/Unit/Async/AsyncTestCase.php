<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async;

use Bobbin\Async\ErrorReporter;
use Bobbin\Async\Loop\DriverChoice;
use Bobbin\Tests\Support\Async\SocketPairs;
use PHPUnit\Framework\TestCase;
use Revolt\EventLoop;
use Revolt\EventLoop\Driver;

/**
 * Gives every test a fresh event loop and collects what ErrorReporter receives, so a test that
 * leaves watchers or fibers behind cannot disturb the next one, and an unexpected report fails
 * the test that caused it.
 */
abstract class AsyncTestCase extends TestCase
{
    use SocketPairs;

    /** @var list<array{\Throwable, string}> */
    protected array $reported = [];
    private Driver $previousDriver;

    protected function setUp(): void
    {
        $this->previousDriver = EventLoop::getDriver();
        self::stopLoop();
        // BOBBIN_LOOP_DRIVER=revolt runs the same tests on Revolt's own driver.
        EventLoop::setDriver(DriverChoice::create());
        $this->reported = [];
        ErrorReporter::setHandler(function (\Throwable $error, string $context): void {
            $this->reported[] = [$error, $context];
        });
    }

    protected function tearDown(): void
    {
        // Late loop callbacks and destructors of abandoned futures report here, while the
        // test's handler still listens.
        self::stopLoop();
        \gc_collect_cycles();
        $unexpected = \array_map(
            static fn (array $report): string => $report[1] . ': ' . $report[0]::class . ': ' . $report[0]->getMessage(),
            $this->reported,
        );
        EventLoop::setDriver($this->previousDriver);
        ErrorReporter::setHandler(null);
        self::assertSame([], $unexpected, 'Errors were reported that the test did not expect');
    }

    /**
     * Awaiting from {main} leaves the loop's own fiber suspended mid-run, and Revolt refuses to
     * swap a running driver: drop what is left and let the loop run to its end.
     */
    private static function stopLoop(): void
    {
        if (!EventLoop::getDriver()->isRunning()) {
            return;
        }
        foreach (EventLoop::getIdentifiers() as $id) {
            EventLoop::cancel($id);
        }
        EventLoop::run();
    }

    /**
     * Returns what was reported so far and forgets it (a test that expects a report takes it).
     *
     * @return list<array{\Throwable, string}>
     */
    protected function takeReported(): array
    {
        \gc_collect_cycles();
        $reported = $this->reported;
        $this->reported = [];

        return $reported;
    }

    /** @return list<string> */
    protected static function loopCallbacks(): array
    {
        return EventLoop::getIdentifiers();
    }
}
