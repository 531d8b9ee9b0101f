<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Http;

use Bobbin\Http\ConnectionLimit;
use PHPUnit\Framework\TestCase;

/** What bounds the connections of one server, and what the server says about it. */
final class ConnectionLimitTest extends TestCase
{
    public function testAnExplicitLimitThatFitsIsKeptAsItIs(): void
    {
        $limit = ConnectionLimit::settle(500, 20000, null, 10);

        self::assertSame(500, $limit->connections);
        self::assertSame('', $limit->lowered);
    }

    public function testTheSelectCeilingBoundsTheLimitAndIsNamedAsTheReasonNotTheOpenFilesLimit(): void
    {
        $limit = ConnectionLimit::settle(5000, 20000, 1024, 13);

        self::assertSame(1024 - 13 - 64, $limit->connections);
        self::assertStringContainsString('loop driver can watch descriptors below 1024', $limit->lowered);
        self::assertStringNotContainsString('open-files limit', $limit->lowered);
    }

    public function testALowOpenFilesLimitIsNamedWithItsRealValue(): void
    {
        $limit = ConnectionLimit::settle(1000, 32, 1024, 10);

        self::assertSame(32 - 10 - 4, $limit->connections);
        self::assertStringContainsString('open-files limit (ulimit -n) is 32', $limit->lowered);
    }

    public function testNoExplicitLimitMeansAsManyAsDescriptorsAllow(): void
    {
        self::assertSame(20000 - 20 - 64, ConnectionLimit::settle(0, 20000, null, 20)->connections);
        self::assertSame(ConnectionLimit::UNBOUNDED_DEFAULT, ConnectionLimit::settle(0, null, null, 20)->connections);
    }

    public function testAtLeastOneConnectionIsAlwaysAllowed(): void
    {
        self::assertSame(1, ConnectionLimit::settle(100, 8, null, 30)->connections);
    }
}
