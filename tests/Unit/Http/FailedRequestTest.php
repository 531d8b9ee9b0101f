<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Http;

use Bobbin\Async\CancelledException;
use Bobbin\Async\TimeoutException;
use Bobbin\Http\FailedRequest;
use Bobbin\Mysql\Exception\OutcomeUnknownException as MysqlOutcomeUnknown;
use Bobbin\Postgres\Exception\ConnectionLostException;
use PHPUnit\Framework\TestCase;

final class FailedRequestTest extends TestCase
{
    public function testAWriteWhoseAnswerNeverCameIs504WhetherOrNotTheDeadlinePassed(): void
    {
        self::assertSame(504, FailedRequest::statusFor(new ConnectionLostException('gone'), false));
        self::assertSame(504, FailedRequest::statusFor(new MysqlOutcomeUnknown('unknown'), true));
        self::assertSame(504, FailedRequest::statusFor(new \RuntimeException('wrapped', 0, new ConnectionLostException('gone')), false));
    }

    public function testACancellationThatEndedARequestPastItsDeadlineIsNotDone(): void
    {
        self::assertSame(503, FailedRequest::statusFor(new TimeoutException('deadline'), true));
        self::assertSame(503, FailedRequest::statusFor(new CancelledException('deadline'), true));
    }

    public function testAnyOtherFailureIs500(): void
    {
        self::assertSame(500, FailedRequest::statusFor(new \RuntimeException('bug'), false));
        self::assertSame(500, FailedRequest::statusFor(new \RuntimeException('bug'), true));
        // A cancellation of the application's own (not the deadline's) is its own failure.
        self::assertSame(500, FailedRequest::statusFor(new CancelledException('own'), false));
    }
}
