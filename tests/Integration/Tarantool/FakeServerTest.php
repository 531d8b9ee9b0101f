<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Tarantool;

use Bobbin\Tarantool\Connection;
use Bobbin\Tarantool\Exception\ConnectException;
use Bobbin\Tarantool\Exception\ConnectionLostException;
use Bobbin\Tarantool\Exception\ConnectTimeoutException;
use Bobbin\Tarantool\Exception\ProtocolException;
use Bobbin\Tarantool\Exception\RequestTimeoutException;
use Bobbin\Tests\Support\Tarantool\FakeTarantoolServer;
use PHPUnit\Framework\TestCase;

/**
 * What no real Tarantool sends — broken frames, a console port, silence, values of versions
 * newer than Debian's — played by a scripted fake server. Every case is a clear exception and
 * the process goes on.
 */
final class FakeServerTest extends TestCase
{
    private ?FakeTarantoolServer $server = null;

    protected function tearDown(): void
    {
        $this->server?->stop();
    }

    private function serve(string $scenario, bool $unixSocket = false): FakeTarantoolServer
    {
        return $this->server = FakeTarantoolServer::start($scenario, $unixSocket);
    }

    public function testAFrameCutShortByTheEndOfTheStreamIsConnectionLost(): void
    {
        $connection = Connection::connect($this->serve('truncated')->config());

        $this->expectException(ConnectionLostException::class);
        $this->expectExceptionMessage('The server closed the connection in the middle of a frame');
        $connection->ping();
    }

    public function testAFrameHeaderThatIsNotMessagePackIsAProtocolErrorThatEndsTheConnection(): void
    {
        $connection = Connection::connect($this->serve('corrupt-header')->config());
        try {
            $connection->ping();
            self::fail('no error');
        } catch (ProtocolException $e) {
            self::assertStringContainsString('0xc1 at offset', $e->getMessage());
        }
        self::assertFalse($connection->isAlive());
    }

    public function testAfterGarbageTheNextCallOpensANewConnectionAndNeverReusesTheOld(): void
    {
        $connection = Connection::connect($this->serve('garbage-then-good')->config());
        try {
            $connection->call('anything');
            self::fail('garbage must not become an answer');
        } catch (ProtocolException $e) {
            self::assertStringContainsString('0xc1 at offset', $e->getMessage());
        }

        // The fake server hung up on the first connection: only a new one is answered.
        self::assertSame(['ok'], $connection->call('anything'));
        self::assertTrue($connection->isAlive());
    }

    public function testALengthThatIsNotAnUnsignedIntegerIsAProtocolError(): void
    {
        $connection = Connection::connect($this->serve('bad-length')->config());

        $this->expectException(ProtocolException::class);
        $this->expectExceptionMessage('The server sent 0xa3 where a frame length (a MessagePack uint) was due');
        $connection->ping();
    }

    public function testABrokenBodyFailsOnlyItsOwnRequestAndTheConnectionGoesOn(): void
    {
        $connection = Connection::connect($this->serve('corrupt-body')->config());
        try {
            $connection->call('anything');
            self::fail('no error');
        } catch (ProtocolException $e) {
            self::assertStringContainsString('body is not MessagePack', $e->getMessage());
        }

        self::assertSame(['fine'], $connection->call('anything'));
        self::assertTrue($connection->isAlive());
    }

    public function testAnAnswerToNoRequestIsDropped(): void
    {
        $connection = Connection::connect($this->serve('stray-answer')->config());

        self::assertSame(['mine'], $connection->call('anything'));
        self::assertSame(['mine'], $connection->call('anything'));
    }

    public function testAConsolePortIsRefusedWithAClearError(): void
    {
        $this->expectException(ConnectException::class);
        $this->expectExceptionMessage('The server speaks the Lua console protocol, not the binary one');
        Connection::connect($this->serve('console')->config());
    }

    public function testSomethingElseThanTarantoolIsRefused(): void
    {
        $this->expectException(ConnectException::class);
        $this->expectExceptionMessage('Not a Tarantool greeting: "HTTP/1.1 400 Bad Request');
        Connection::connect($this->serve('http')->config());
    }

    public function testAServerThatNeverGreetsIsAConnectTimeout(): void
    {
        $this->expectException(ConnectTimeoutException::class);
        $this->expectExceptionMessageMatches('/took longer than 0\.300 s/');
        Connection::connect($this->serve('no-greeting')->config(connectTimeout: 0.3));
    }

    public function testAServerThatNeverAnswersIsARequestTimeout(): void
    {
        $connection = Connection::connect($this->serve('silent')->config(requestTimeout: 0.2));

        $this->expectException(RequestTimeoutException::class);
        $connection->ping();
    }

    public function testADatetimeOfTarantool210IsADateTimeImmutable(): void
    {
        $connection = Connection::connect($this->serve('datetime')->config());
        $value = $connection->call('now')[0];

        self::assertInstanceOf(\DateTimeImmutable::class, $value);
        self::assertSame('2022-08-30T15:34:56.123456+03:00', $value->format('Y-m-d\TH:i:s.uP'));
    }

    public function testAUnixSocketWorksLikeTcp(): void
    {
        $connection = Connection::connect($this->serve('normal', true)->config());

        self::assertSame(['ok'], $connection->call('anything'));
        self::assertStringContainsString('fake@unix:', (string) $this->server?->config()->describe());
    }
}
