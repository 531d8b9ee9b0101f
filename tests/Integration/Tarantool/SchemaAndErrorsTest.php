<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Tarantool;

use Bobbin\Async\Channel;
use Bobbin\Async\Async;
use Bobbin\Tarantool\Connection;
use Bobbin\Tarantool\ConnectionConfig;
use Bobbin\Tarantool\Exception\AccessDeniedException;
use Bobbin\Tarantool\Exception\ConnectException;
use Bobbin\Tarantool\Exception\QueryException;
use Bobbin\Tarantool\Exception\UniqueViolationException;
use Bobbin\Tests\Support\Tarantool\EmbeddedTarantool;
use PHPUnit\Framework\TestCase;

/** Names through the schema cache while the schema changes; server errors; session pushes. */
final class SchemaAndErrorsTest extends TestCase
{
    private function admin(string $lua): void
    {
        EmbeddedTarantool::admin($lua);
    }

    public function testASpaceRecreatedBetweenTwoRequestsIsFoundUnderItsNewId(): void
    {
        $this->admin("if box.space.moving then box.space.moving:drop() end box.schema.space.create('moving'):create_index('pk') box.space.moving:insert({1, 'first'})");
        $connection = Connection::connect(EmbeddedTarantool::url());
        self::assertSame([[1, 'first']], $connection->select('moving', 1));
        $oldId = $connection->eval('return box.space.moving.id')[0];

        // Changed behind the connection's back, by another session: the cached id is stale.
        $this->admin("box.space.moving:drop() box.schema.space.create('filler') box.schema.space.create('moving'):create_index('pk') box.space.moving:insert({1, 'second'}) box.space.filler:drop()");
        self::assertNotSame($oldId, $connection->eval('return box.space.moving.id')[0]);

        self::assertSame([[1, 'second']], $connection->select('moving', 1));
        self::assertSame([1, 'third'], $connection->replace('moving', [1, 'third']));
        $this->admin('box.space.moving:drop()');
        $connection->close();
    }

    public function testARequestRefusedForAnOldSchemaVersionIsSentOnceMoreWithTheNamesReadAgain(): void
    {
        $this->admin("if box.space.versioned then box.space.versioned:drop() end box.schema.space.create('versioned'):create_index('pk')");
        $connection = Connection::connect(EmbeddedTarantool::url());
        $connection->insert('versioned', [1]);
        // Another index: the schema version moves on, the space keeps its id.
        $this->admin("box.space.versioned:create_index('second', {parts = {1, 'unsigned'}})");

        self::assertSame([[1]], $connection->select('versioned', 1, 'second'));
        self::assertSame([2], $connection->insert('versioned', [2]));
        $this->admin('box.space.versioned:drop()');
        $connection->close();
    }

    public function testAnUnknownSpaceOrIndexNameIsAQueryException(): void
    {
        $connection = Connection::connect(EmbeddedTarantool::url());
        try {
            $connection->select('no_such_space', 1);
            self::fail('found');
        } catch (QueryException $e) {
            self::assertSame("Space 'no_such_space' does not exist", $e->getMessage());
            self::assertSame(36, $e->errorCode());
        }
        $this->expectException(QueryException::class);
        $this->expectExceptionMessage("No index 'nope'");
        $connection->select('bench', 1, 'nope');
    }

    public function testAServerErrorCarriesTheCodeTheMessageAndTheErrorStack(): void
    {
        $connection = Connection::connect(EmbeddedTarantool::url());
        $connection->replace('bench', [1, 'one']);
        try {
            $connection->insert('bench', [1, 'again']);
            self::fail('inserted twice');
        } catch (UniqueViolationException $e) {
            self::assertSame(3, $e->errorCode());
            self::assertStringStartsWith('Duplicate key exists in unique index \'primary\' in space \'bench\'', $e->getMessage());
        }
        try {
            $connection->eval(<<<'LUA'
                local cause = box.error.new({code = 7, reason = 'the cause'})
                local e = box.error.new({code = 1234, reason = 'on top', type = 'AppError'})
                e:set_prev(cause)
                e:raise()
            LUA);
            self::fail('no error');
        } catch (QueryException $e) {
            self::assertSame(1234, $e->errorCode());
            self::assertStringStartsWith('on top (eval, code 1234)', $e->getMessage());
            self::assertSame('CustomError', $e->errorStack()?->type);
            self::assertSame('AppError', $e->errorStack()->fields['custom_type'] ?? null);
            self::assertSame('the cause', $e->errorStack()->previous?->message);
        }
        self::assertSame([[1, 'one']], $connection->select('bench', 1), 'the connection goes on after errors');
        $connection->close();
    }

    public function testAWrongPasswordIsAccessDeniedAndAnUnknownUserToo(): void
    {
        $config = ConnectionConfig::fromUrl(EmbeddedTarantool::url());
        try {
            Connection::connect($config->with(password: 'wrong'));
            self::fail('connected');
        } catch (AccessDeniedException $e) {
            self::assertSame(47, $e->errorCode());
            self::assertStringContainsString('Incorrect password', $e->getMessage());
            self::assertStringNotContainsString('wrong', $e->getMessage());
        }
        $this->expectException(AccessDeniedException::class);
        Connection::connect(new ConnectionConfig($config->host, $config->port, 'nobody', 'x'));
    }

    public function testARefusedPortIsAConnectException(): void
    {
        $socket = \stream_socket_server('tcp://127.0.0.1:0');
        self::assertNotFalse($socket);
        $port = (int) \substr((string) \stream_socket_get_name($socket, false), 10);
        \fclose($socket);

        $this->expectException(ConnectException::class);
        $this->expectExceptionMessageMatches('/Cannot connect to Tarantool \(guest@127\.0\.0\.1:\d+\)/');
        Connection::connect(new ConnectionConfig(port: $port));
    }

    public function testSessionPushesReachTheCallbackInOrderBeforeTheAnswer(): void
    {
        $connection = Connection::connect(EmbeddedTarantool::url());
        $messages = [];
        $answer = $connection->call('push_messages', [3], static function (mixed $message) use (&$messages): void {
            $messages[] = $message;
        });

        self::assertSame([[1, 'message 1'], [2, 'message 2'], [3, 'message 3']], $messages);
        self::assertSame(['done'], $answer);
        $pushed = [];
        self::assertSame(['ok'], $connection->eval("box.session.push('from eval') return 'ok'", [], static function (mixed $m) use (&$pushed): void {
            $pushed[] = $m;
        }));
        self::assertSame(['from eval'], $pushed);
        self::assertSame(['done'], $connection->call('push_messages', [2]), 'pushes without a callback are dropped');
        $connection->close();
    }

    public function testPushesOfConcurrentRequestsGoToTheirOwnChannel(): void
    {
        $connection = Connection::connect(EmbeddedTarantool::url());
        $channels = [new Channel(100), new Channel(100)];
        $calls = [];
        foreach ($channels as $i => $channel) {
            $calls[] = Async::run(static fn () => $connection->call('push_messages', [5 + $i], $channel->send(...)));
        }
        foreach ($calls as $call) {
            $call->await();
        }

        foreach ($channels as $i => $channel) {
            self::assertSame(5 + $i, $channel->count());
            self::assertSame([1, 'message 1'], $channel->receive());
        }
        $connection->close();
    }

    public function testAnExceptionFromAPushCallbackReachesTheCallerAndTheConnectionGoesOn(): void
    {
        $connection = Connection::connect(EmbeddedTarantool::url());
        try {
            $connection->call('push_messages', [3], static fn (mixed $m) => throw new \RuntimeException('refused'));
            self::fail('no exception');
        } catch (\RuntimeException $e) {
            self::assertSame('refused', $e->getMessage());
        }
        self::assertSame(['done'], $connection->call('push_messages', [1]));
        $connection->close();
    }
}
