<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Contract;

use Bobbin\Async\OwnsResources;
use Bobbin\Http;
use Bobbin\Ipc;
use Bobbin\Jobs;
use Bobbin\Mysql;
use Bobbin\Nats;
use Bobbin\Pool\Pool;
use Bobbin\Pool\PoolSettings;
use Bobbin\Postgres;
use Bobbin\Process;
use Bobbin\Redis;
use Bobbin\Tarantool;
use Bobbin\Tests\Unit\Pool\FakeConnector;
use Closure;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * Every object that owns a socket, a handle, a process or a pool refuses clone and serialize
 * (ARCHITECTURE.md, rules of the house; Async\OwnsResources says how and why). The list is the
 * contract: a new client's connection, pool or client goes here.
 */
final class ResourceOwnersRefuseCopiesTest extends TestCase
{
    /** @var list<class-string> */
    private const OWNERS = [
        Postgres\Connection::class, Postgres\ConnectionPool::class, Postgres\Listener::class, Postgres\Transaction::class,
        Mysql\Connection::class, Mysql\ConnectionPool::class, Mysql\Transaction::class, Mysql\Internal\Transport::class,
        Redis\Client::class, Redis\Connection::class, Redis\Subscriber::class, Redis\Transaction::class, Redis\Internal\Socket::class,
        Tarantool\Connection::class, Tarantool\ConnectionPool::class, Tarantool\Transaction::class, Tarantool\Internal\Session::class,
        Nats\Connection::class, Nats\Subscription::class, Nats\Inbox::class, Nats\JetStream\PullConsumer::class, Nats\Internal\Socket::class,
        Ipc\ShmClient::class, Ipc\SocketClient::class, Ipc\Internal\ShmConnection::class, Ipc\Internal\SocketConnection::class,
        Ipc\Internal\ReconnectingChannel::class, Ipc\Internal\SharedMemory::class, Ipc\Internal\MappedRing::class,
        Http\Server::class, Http\Connection::class, Http\StaticFiles\FileBody::class,
        Jobs\Jobs::class, Jobs\Local\LocalPoolTransport::class, Jobs\Local\TaskServer::class, Jobs\Local\TaskCall::class,
        Jobs\Nats\NatsTransport::class, Jobs\Nats\RemoteJobServer::class,
        Pool::class,
        Process\Master::class, Process\JobMaster::class, Process\JobSupervisor::class, Process\Worker::class, Process\JobWorker::class,
        Process\WorkerHandle::class, Process\WorkerChannel::class, Process\Admin\AdminListener::class,
    ];

    /** @return iterable<string, array{class-string}> */
    public static function owners(): iterable
    {
        foreach (self::OWNERS as $class) {
            yield $class => [$class];
        }
    }

    /** @param class-string $class */
    #[DataProvider('owners')]
    public function testTheEngineRefusesToCloneIt(string $class): void
    {
        self::assertFalse((new \ReflectionClass($class))->isCloneable(), $class . ' must not be cloneable');
        // The engine names the class that declares __clone() (a base class, for the IPC connections).
        $declaring = (new \ReflectionMethod($class, '__clone'))->getDeclaringClass()->getName();
        self::withoutConstructor($class, static function (object $owner) use ($class, $declaring): void {
            try {
                $copy = clone $owner;
                self::fail('cloned ' . $class);
            } catch (\Error $refused) {
                self::assertStringStartsWith('Call to private ' . $declaring . '::__clone()', $refused->getMessage());
            }
        });
    }

    /** @param class-string $class */
    #[DataProvider('owners')]
    public function testSerializingItThrowsALogicExceptionNamingTheClass(string $class): void
    {
        self::withoutConstructor($class, static function (object $owner) use ($class): void {
            foreach ([$owner, ['held' => [$owner]]] as $value) {
                try {
                    \serialize($value);
                    self::fail('serialized ' . $class);
                } catch (\LogicException $refused) {
                    self::assertStringStartsWith($class . ' cannot be serialized: it owns', $refused->getMessage());
                }
            }
        });
    }

    /** @param class-string $class */
    #[DataProvider('owners')]
    public function testBytesNamingItNeverUnserializeIntoAnObject(string $class): void
    {
        try {
            \unserialize(\sprintf('O:%d:"%s":0:{}', \strlen($class), $class));
            self::fail('unserialized ' . $class);
        } catch (\LogicException $refused) {
            self::assertStringStartsWith($class . ' cannot be unserialized', $refused->getMessage());
        }
    }

    /** @param class-string $class */
    #[DataProvider('owners')]
    public function testItUsesTheSharedTrait(string $class): void
    {
        $uses = [];
        for ($c = new \ReflectionClass($class); $c !== false; $c = $c->getParentClass()) {
            $uses = [...$uses, ...$c->getTraitNames()];
        }
        self::assertContains(OwnsResources::class, $uses);
    }

    /** @return iterable<string, array{Closure(): object}> */
    public static function realInstances(): iterable
    {
        yield 'a pool' => [static fn (): object => new Pool(new FakeConnector(), new PoolSettings(maxSize: 1, acquireTimeout: 1.0))];
        yield 'a Redis client, not connected yet' => [static fn (): object => new Redis\Client('redis://127.0.0.1:1')];
        yield 'a MySQL pool, not connected yet' => [static fn (): object => new Mysql\ConnectionPool(Mysql\PoolConfig::fromUrl('mysql://u@127.0.0.1:1/db'))];
        yield 'a Tarantool pool, not connected yet' => [static fn (): object => new Tarantool\ConnectionPool(Tarantool\PoolConfig::fromUrl('tarantool://127.0.0.1:1'))];
        yield 'an IPC channel, not connected yet' => [static fn (): object => new Ipc\Internal\ReconnectingChannel(static fn () => throw new \LogicException('not opened'))];
        yield 'a worker channel on a socket pair' => [static function (): object {
            $pair = \stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, 0);
            self::assertNotFalse($pair);

            return new Process\WorkerChannel($pair[0]);
        }];
    }

    /** @param Closure(): object $make */
    #[DataProvider('realInstances')]
    public function testAConstructedOwnerRefusesBothToo(Closure $make): void
    {
        $owner = $make();
        try {
            $copy = clone $owner;
            self::fail('cloned');
        } catch (\Error $refused) {
            self::assertStringContainsString($owner::class . '::__clone()', $refused->getMessage());
        }
        $this->expectException(\LogicException::class);
        $this->expectExceptionMessage($owner::class . ' cannot be serialized');
        \serialize($owner);
    }

    /**
     * Runs $check on an instance no constructor set up; its destructor (when it has one) may then
     * fail on properties never set, which says nothing about copies.
     *
     * @param class-string $class
     * @param Closure(object): void $check
     */
    private static function withoutConstructor(string $class, Closure $check): void
    {
        $owner = (new \ReflectionClass($class))->newInstanceWithoutConstructor();
        try {
            $check($owner);
        } finally {
            try {
                $owner = null;
            } catch (\Error) {
                // The destructor of an object its constructor never set up.
            }
        }
    }
}
