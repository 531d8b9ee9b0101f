<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\SharedConnect;

use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Async\CancelledException;
use Bobbin\Async\TimeoutCancellation;
use PHPUnit\Framework\TestCase;

/**
 * What every client whose callers share one connect promises (issue 42): the connect takes no
 * caller's cancellation. With the server frozen (SIGSTOP: the kernel accepts the connection,
 * nobody answers), caller A with a 0.2 s deadline and caller B with none ask at once; A times
 * out alone after 0.2 s, and B gets its answer once the server is back after 1 s.
 */
abstract class SharedConnectContract extends TestCase
{
    /** Starts the server and a client on it that has no open connection (or one it knows broke). */
    abstract protected function setUpServerAndClient(): void;

    abstract protected function freeze(): void;

    abstract protected function thaw(): void;

    /** One request through the client: it starts (or joins) the shared connect. */
    abstract protected function ask(?Cancellation $cancellation): mixed;

    abstract protected function expectedAnswer(): mixed;

    abstract protected function tearDownServerAndClient(): void;

    protected function setUp(): void
    {
        $this->setUpServerAndClient();
    }

    protected function tearDown(): void
    {
        $this->thaw();
        $this->tearDownServerAndClient();
    }

    public function testACallerWhoseDeadlinePassesDuringTheSharedConnectTimesOutAloneAndTheOtherGetsItsAnswerOnceTheServerIsBack(): void
    {
        $this->freeze();
        $started = \microtime(true);
        $hurried = Async::run(fn (): mixed => $this->ask(new TimeoutCancellation(0.2)));
        $patient = Async::run(fn (): mixed => $this->ask(null));
        $back = Async::run(function (): void {
            Async::delay(1.0);
            $this->thaw();
        });

        try {
            $hurried->await();
            self::fail('caller A was answered by a frozen server');
        } catch (CancelledException) {
            self::assertLessThan(0.9, \microtime(true) - $started, 'caller A waited for the server instead of its deadline');
        }
        try {
            self::assertEquals($this->expectedAnswer(), $patient->await(new TimeoutCancellation(10.0)));
        } catch (CancelledException $e) {
            self::fail(\sprintf('caller B was failed by caller A\'s deadline after %.2f s: %s: %s', \microtime(true) - $started, $e::class, $e->getMessage()));
        }
        self::assertGreaterThanOrEqual(0.9, \microtime(true) - $started);
        $back->await();
    }
}
