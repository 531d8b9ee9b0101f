<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Ipc;

use Bobbin\Ipc\Endpoint;
use Bobbin\Ipc\Transport;
use PHPUnit\Framework\TestCase;

final class EndpointTest extends TestCase
{
    public function testAUnixEndpointNamesItsSocketFile(): void
    {
        $endpoint = Endpoint::unix('/run/bobbin/ipcd.sock');
        self::assertSame(Transport::Unix, $endpoint->transport);
        self::assertSame('unix:///run/bobbin/ipcd.sock', $endpoint->uri());
    }

    public function testATcpEndpointBracketsIpv6Hosts(): void
    {
        self::assertSame('tcp://127.0.0.1:7000', Endpoint::tcp('127.0.0.1', 7000)->uri());
        self::assertSame('tcp://[::1]:7000', Endpoint::tcp('::1', 7000)->uri());
    }

    public function testABadPortIsRejected(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        Endpoint::tcp('127.0.0.1', 70000);
    }
}
