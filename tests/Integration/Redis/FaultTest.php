<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Redis;

use Bobbin\Redis\Client;
use Bobbin\Redis\ClientConfig;
use Bobbin\Redis\Connection;
use Bobbin\Redis\ConnectionConfig;
use Bobbin\Redis\Exception\CommandTimeoutException;
use Bobbin\Redis\Exception\ConnectionLostException;
use Bobbin\Redis\Exception\ProtocolException;
use Bobbin\Tests\Support\Redis\FakeRedisServer;
use PHPUnit\Framework\TestCase;

/** What no real server shows: a reply cut in the middle, a malformed one, none at all, one too many. */
final class FaultTest extends TestCase
{
    private ?FakeRedisServer $server = null;

    protected function tearDown(): void
    {
        $this->server?->stop();
    }

    public function testAReplyCutInTheMiddleIsALostConnectionNotAShortValue(): void
    {
        $this->server = FakeRedisServer::start('cut');
        $connection = Connection::connect($this->server->url());

        try {
            $connection->get('k');
            self::fail('a value came back');
        } catch (ConnectionLostException $e) {
            self::assertStringContainsString('closed the connection before answering; the command may or may not have run', $e->getMessage());
        }
        self::assertTrue($connection->isClosed());
    }

    public function testACommandWrittenToAConnectionTheServerResetFailsAsBrokenWhileSending(): void
    {
        $this->server = FakeRedisServer::start('reset');
        $connection = Connection::connect($this->server->url());
        \usleep(200_000); // the RST arrives: the next write fails at once

        try {
            $connection->get('k');
            self::fail('a value came back');
        } catch (ConnectionLostException $e) {
            self::assertStringContainsString('broke while sending; the commands in flight may or may not have run', $e->getMessage());
        }
        self::assertTrue($connection->isClosed());
        $this->expectException(ConnectionLostException::class);
        $this->expectExceptionMessage('broke while sending');
        $connection->get('k');
    }

    public function testAMalformedReplyIsAClearErrorAndClosesTheConnection(): void
    {
        $this->server = FakeRedisServer::start('malformed');
        $connection = Connection::connect($this->server->url());

        try {
            $connection->get('k');
            self::fail('a value came back');
        } catch (ProtocolException $e) {
            self::assertStringContainsString('sent a malformed reply: Unexpected byte 0x3c where a reply should start', $e->getMessage());
        }
        self::assertTrue($connection->isClosed());
    }

    public function testAfterGarbageTheClientOpensANewConnectionAndNeverReusesTheOld(): void
    {
        $this->server = FakeRedisServer::start('garbage-then-good');
        $client = new Client(new ClientConfig(ConnectionConfig::fromUrl($this->server->url())));
        try {
            $client->get('k');
            self::fail('garbage must not become a value');
        } catch (ProtocolException $e) {
            self::assertStringContainsString('does not end with CRLF where its length says', $e->getMessage());
        }

        // The fake server closed the first connection: only a new one is answered.
        self::assertSame('yes', $client->get('k'));
    }

    public function testAReplyNobodyAskedForIsAProtocolError(): void
    {
        $this->server = FakeRedisServer::start('extra');
        $connection = Connection::connect($this->server->url());

        $this->expectException(ProtocolException::class);
        $this->expectExceptionMessage('a reply to no command');
        $connection->get('k');
        $connection->get('k');
    }

    public function testNothingHangsPastItsTimeout(): void
    {
        $this->server = FakeRedisServer::start('silent');
        $client = new Client(new ClientConfig(ConnectionConfig::fromUrl($this->server->url())->with(commandTimeout: 0.2)));
        $started = \microtime(true);

        try {
            $client->get('k');
            self::fail('a value came back');
        } catch (CommandTimeoutException) {
            self::assertEqualsWithDelta(0.2, \microtime(true) - $started, 0.15);
        }
    }
}
