<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Process;

use Bobbin\Async\BlockedCode;
use Bobbin\Async\LoopHold;
use Bobbin\Http\RunningRequest;
use Bobbin\Process\BlockReporter;
use PHPUnit\Framework\TestCase;
use Psr\Log\AbstractLogger;

final class BlockReporterTest extends TestCase
{
    /** @var list<array{string, string, array<string, mixed>}> */
    private array $records = [];
    private object $requestFiber;
    private BlockReporter $reporter;

    protected function setUp(): void
    {
        $records = &$this->records;
        $logger = new class ($records) extends AbstractLogger {
            /** @param list<array{string, string, array<string, mixed>}> $records */
            public function __construct(private array &$records)
            {
            }

            public function log($level, string|\Stringable $message, array $context = []): void
            {
                $this->records[] = [(string) $level, (string) $message, $context];
            }
        };
        $this->requestFiber = new \stdClass();
        $fiber = $this->requestFiber;
        $this->reporter = new BlockReporter(
            $logger,
            static fn (object $task): ?RunningRequest => $task === $fiber ? new RunningRequest('POST', '/orders?x=1', 'abc-7') : null,
            0.1,
        );
    }

    public function testAReportNamesTheRequestWhereTheCodeWasAndItsStack(): void
    {
        $this->reporter->report(self::blocked(0.25, $this->requestFiber));

        self::assertCount(1, $this->records);
        [$level, $message, $context] = $this->records[0];
        self::assertSame('warning', $level);
        self::assertStringContainsString('{what} has held the loop', $message);
        self::assertSame('POST /orders?x=1 (request abc-7)', $context['what']);
        self::assertSame(0.25, $context['seconds']);
        self::assertSame('/app/src/Report.php:41', $context['at']);
        self::assertSame("#0 /app/src/Controller.php(12): App\\Report->build()\n#1 [internal function]: App\\Controller::{closure}()", $context['stack']);
    }

    public function testARequestIsReportedOnceHoweverOftenItIsProbed(): void
    {
        $this->reporter->report(self::blocked(0.1, $this->requestFiber));
        $this->reporter->report(self::blocked(0.2, $this->requestFiber));
        $this->reporter->report(self::blocked(0.4, $this->requestFiber));

        self::assertCount(1, $this->records);
    }

    public function testCodeOutsideAnyRequestIsReportedEachTime(): void
    {
        $this->reporter->report(self::blocked(0.2, new \stdClass()));
        $this->reporter->report(self::blocked(0.3, null));

        self::assertCount(2, $this->records);
        self::assertSame('Code outside any request', $this->records[0][2]['what']);
    }

    public function testAHoldSeenAfterTheFactNamesTheRequestAndHowLongItHeldTheLoop(): void
    {
        $this->reporter->held(new LoopHold(1.0004, null, $this->requestFiber, 7));

        self::assertCount(1, $this->records);
        [$level, $message, $context] = $this->records[0];
        self::assertSame('warning', $level);
        self::assertStringContainsString('was held for {seconds} s by {what} without yielding', $message);
        self::assertSame('POST /orders?x=1 (request abc-7)', $context['what']);
        self::assertSame(1.0, $context['seconds']);
    }

    public function testARequestWhoseStackWasReportedIsNotReportedAgainWhenItLetsGo(): void
    {
        $this->reporter->report(self::blocked(0.1, $this->requestFiber));
        $this->reporter->held(new LoopHold(0.9, null, $this->requestFiber, 7));

        self::assertCount(1, $this->records);
    }

    public function testACallbackOutsideAnyRequestIsNamedByWhereItWasWritten(): void
    {
        $line = __LINE__ + 1;
        $callback = static fn () => null;
        $this->reporter->held(new LoopHold(0.3, $callback, new \stdClass(), 7));

        self::assertSame('code outside any request (a callback from ' . __FILE__ . ':' . $line . ')', $this->records[0][2]['what'] ?? null);
    }

    public function testALongLoopTurnMadeOfShortTasksBlamesNoOne(): void
    {
        $this->reporter->report(self::blocked(0.02, $this->requestFiber, 1, 0.15));

        self::assertSame([], $this->records);
    }

    public function testAStackTakenJustBeforeTheHoldPassedTheThresholdIsLoggedWhenThatHoldEnds(): void
    {
        // The master counts from the loop's wake-up, the probe from the fiber's start a little
        // later; the signal also cuts a sleep() short, so the hold may end soon after.
        $this->reporter->report(self::blocked(0.08, $this->requestFiber, 5, 0.1));
        self::assertSame([], $this->records);

        $this->reporter->held(new LoopHold(0.1034, null, $this->requestFiber, 5));

        self::assertCount(1, $this->records);
        [, $message, $context] = $this->records[0];
        self::assertStringContainsString('{what} has held the loop', $message);
        self::assertSame('POST /orders?x=1 (request abc-7)', $context['what']);
        self::assertSame(0.103, $context['seconds']);
        self::assertSame('/app/src/Report.php:41', $context['at']);
        self::assertStringStartsWith('#0 /app/src/Controller.php(12)', $context['stack']);
    }

    public function testCodeThatHasHeldMostOfALongTurnIsReportedAtOnceEvenJustUnderTheThreshold(): void
    {
        // The turn began with the loop's own work (the socket's read, an accept): the watchdog
        // signalled at 0.1 s of turn, the handler had held 0.098 s of it; its sleep() cut short
        // by the signal, its hold may end before reaching the threshold.
        $this->reporter->report(self::blocked(0.098, $this->requestFiber, 5, 0.1));

        self::assertCount(1, $this->records);
        self::assertStringContainsString('{what} has held the loop', $this->records[0][1]);
        self::assertSame(0.098, $this->records[0][2]['seconds']);
        self::assertSame('/app/src/Report.php:41', $this->records[0][2]['at']);
    }

    public function testAStackTakenInAnEarlierHoldIsNotGivenToALaterOne(): void
    {
        $this->reporter->report(self::blocked(0.05, $this->requestFiber, 5, 0.1));
        $this->reporter->held(new LoopHold(0.3, null, $this->requestFiber, 9));

        self::assertCount(1, $this->records);
        self::assertStringContainsString('was held for {seconds} s by {what} without yielding', $this->records[0][1]);
    }

    public function testReportsAreCountedForTheMetrics(): void
    {
        $this->reporter->report(self::blocked(0.2, $this->requestFiber));
        $this->reporter->report(self::blocked(0.2, null));

        $families = \iterator_to_array($this->reporter->collect(), false);
        self::assertSame('bobbin_loop_blocks_total', $families[0]->name);
        self::assertSame(2.0, $families[0]->samples[0][1]);
    }

    private static function blocked(float $seconds, ?object $task, int $since = 1, ?float $turnSeconds = null): BlockedCode
    {
        return new BlockedCode($seconds, '/app/src/Report.php', 41, [
            ['file' => '/app/src/Controller.php', 'line' => 12, 'function' => 'build', 'class' => 'App\\Report', 'type' => '->'],
            ['function' => '{closure}', 'class' => 'App\\Controller', 'type' => '::'],
        ], $task, $since, $turnSeconds ?? $seconds);
    }
}
