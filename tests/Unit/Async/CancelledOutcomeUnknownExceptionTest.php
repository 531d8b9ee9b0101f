<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async;

use Bobbin\Async\CancelledException;
use Bobbin\Async\CancelledOutcomeUnknownException;
use Bobbin\Async\OutcomeUnknown;
use Bobbin\Async\Timeout;
use Bobbin\Async\TimeoutException;
use PHPUnit\Framework\TestCase;

/** Both catches keep working: the plain cancellation's, and the three-outcome caller's. */
final class CancelledOutcomeUnknownExceptionTest extends TestCase
{
    public function testCodeCatchingTheCancellationSeesTheCancellationItAlwaysSaw(): void
    {
        $timeout = new TimeoutException('the caller gave up');
        try {
            self::throw(new CancelledOutcomeUnknownException($timeout));
        } catch (CancelledException $e) {
            self::assertSame('the caller gave up', $e->getMessage());
            self::assertSame($timeout, $e->getPrevious(), 'the timeout stays reachable');
        }
    }

    public function testACallerOfThreeOutcomesCatchingOutcomeUnknownFirstHearsUnknown(): void
    {
        $outcome = 'done';
        try {
            self::throw(new CancelledOutcomeUnknownException(new CancelledException('cancelled')));
        } catch (OutcomeUnknown) {
            $outcome = 'unknown';
        } catch (CancelledException) {
            $outcome = 'not done';
        }

        self::assertSame('unknown', $outcome);
    }

    public function testItIsNoTimeoutItself(): void
    {
        // As the SQL clients' OutcomeUnknownException: a timeout whose outcome is unknown is
        // unknown first (a blind retry of a write is wrong); the timeout is its previous.
        self::assertNotContains(Timeout::class, \class_implements(CancelledOutcomeUnknownException::class));
    }

    /** As a client throws it: what the caller's catch sees is all it knows. */
    private static function throw(\Throwable $e): void
    {
        throw $e;
    }
}
