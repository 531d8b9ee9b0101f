<?php

declare(strict_types=1);

namespace Bobbin\Redis;

use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Async\CancelledException;
use Bobbin\Async\OwnsResources;
use Bobbin\Async\SharedAttempt;
use Bobbin\Pool\Pool;
use Bobbin\Pool\PoolClosedException;
use Bobbin\Pool\PoolStatistics;
use Bobbin\Pool\PoolTimeoutException as SharedPoolTimeoutException;
use Bobbin\Redis\Exception\ConnectionLostException;
use Bobbin\Redis\Exception\PoolTimeoutException;
use Bobbin\Redis\Exception\RedisException;
use Bobbin\Redis\Internal\ClientCache;
use Bobbin\Redis\Internal\CommandPolicy;
use Bobbin\Redis\Internal\ErrorFactory;
use Bobbin\Redis\Internal\ErrorReply;
use Bobbin\Redis\Internal\PoolConnector;
use Closure;

/**
 * Redis for every fiber of a process: one pipelined connection they all share (Connection), opened
 * on first use and again on the first command after it was lost or closed by the server while
 * idle (a peek before sending: the command goes on the new one), plus a small pool of dedicated
 * connections (src/Pool) for what cannot share one: transactions with WATCH and blocking
 * commands. Subscriptions get a connection of their own (subscribe()).
 *
 * A lost connection fails the commands in flight with ConnectionLostException (they may or may
 * not have run, and are never sent again); the next command opens a new one. Commands that would
 * change or hold the shared connection are refused with a CommandNotAllowedException naming the
 * method to use instead.
 */
final class Client implements Executor
{
    use OwnsResources;

    use ExecutesCommands {
        get as private getFromServer;
    }

    private readonly ClientConfig $config;
    private ?Connection $shared = null;
    /** @var SharedAttempt<Connection> */
    private readonly SharedAttempt $connects;
    /** @var Pool<Connection> */
    private readonly Pool $dedicated;
    private readonly ?ClientCache $cache;
    private bool $closed = false;

    public function __construct(#[\SensitiveParameter] ClientConfig|string $config)
    {
        $this->config = \is_string($config) ? ClientConfig::fromUrl($config) : $config;
        $connection = $this->config->connection;
        $this->connects = new SharedAttempt();
        $this->cache = $this->config->cacheSize > 0 ? new ClientCache($this->config->cacheSize) : null;
        // Dedicated connections wait as long as their command says (a BLPOP's own timeout).
        $this->dedicated = new Pool(new PoolConnector($connection->with(commandTimeout: null, tracking: false)), $this->config->pool);
    }

    public function __destruct()
    {
        $this->close();
    }

    public function execute(array $command, ?Cancellation $cancellation = null): mixed
    {
        CommandPolicy::checkShared($command);
        if ($this->cache !== null && $this->cache->count() > 0) {
            // This connection's own writes are invalidated after their reply: too late for the
            // read that may follow at once.
            foreach ($command as $i => $argument) {
                if ($i > 0 && \is_string($argument)) {
                    $this->cache->forget($argument);
                }
            }
        }
        // Only a command that can be cancelled is queued so that it can be taken back (a token per command).
        $id = $this->send($command, $cancellation, $connection, $cancellation !== null);
        $reply = $cancellation === null ? $connection->await($id) : $connection->awaitOrWithdraw($id, $cancellation);
        if ($reply instanceof ErrorReply) {
            throw ErrorFactory::forReply($reply, $command);
        }

        return \is_array($reply) ? ErrorFactory::inPlace($reply, $command) : $reply;
    }

    /**
     * GET, from the client-side cache when it is on (ClientConfig::$cacheSize) and holds the key:
     * the server tells this client when a value it read changes (CLIENT TRACKING), and the value
     * is dropped as that invalidation is read. The cache answers only when every invalidation
     * that has reached this process is applied; one still on its way from the server is not (see
     * docs/REDIS.md): getFresh() reads past the cache.
     */
    public function get(string $key, ?Cancellation $cancellation = null): ?string
    {
        if ($this->cache === null) {
            return $this->getFromServer($key, $cancellation);
        }
        $connection = $this->shared;
        // catchUp() also sees the end of the stream of an idle connection the server closed.
        if ($connection !== null && $connection->catchUp() && $this->cache->has($key)) {
            return $this->cache->get($key);
        }

        return $this->getThrough($key, true, $cancellation);
    }

    /**
     * GET from the server whether or not the client-side cache holds the key, for a read that
     * must see a write another connection has finished: its invalidation reaches this client
     * asynchronously (docs/REDIS.md, "Client-side caching"). The reply refreshes the cache.
     * Without the cache, the same as get().
     */
    public function getFresh(string $key, ?Cancellation $cancellation = null): ?string
    {
        if ($this->cache === null) {
            return $this->getFromServer($key, $cancellation);
        }

        return $this->getThrough($key, false, $cancellation);
    }

    /**
     * Sends the commands in one write on the shared connection and returns their replies in
     * order (not a transaction: other fibers' commands may run between them). Error replies are
     * CommandException objects in their place.
     *
     * @param list<array<int, mixed>> $commands
     * @return list<mixed>
     */
    public function pipeline(array $commands, ?Cancellation $cancellation = null): array
    {
        foreach ($commands as $command) {
            CommandPolicy::checkShared($command);
        }
        $cancellation?->throwIfRequested();

        return $this->live($cancellation)->pipeline($commands, $cancellation);
    }

    /**
     * MULTI/EXEC on a dedicated connection, WATCHing $watch first (see Transaction).
     *
     * @param Closure(Transaction): mixed $work
     * @param list<string> $watch
     * @return list<mixed> EXEC's replies
     * @throws Exception\TransactionConflictException when a watched key changed: run it again
     */
    public function transaction(Closure $work, array $watch = [], ?Cancellation $cancellation = null): array
    {
        $connection = $this->acquire($cancellation);
        try {
            return Transaction::run($connection, $work, $watch, $cancellation);
        } finally {
            $this->dedicated->release($connection);
        }
    }

    /**
     * A blocking command (BLPOP, BRPOP, BLMOVE, BZPOPMIN, XREAD … BLOCK, WAIT) on a dedicated
     * connection. Cancelled, it is unblocked on the server (CLIENT UNBLOCK) and its connection
     * comes back to the pool once its reply is read.
     *
     * @param array<int, mixed> $command
     */
    public function blocking(array $command, ?Cancellation $cancellation = null): mixed
    {
        $connection = $this->acquire($cancellation);
        try {
            return $connection->execute($command, $cancellation);
        } catch (CancelledException $e) {
            if (!$connection->isClosed() && $connection->inFlight() > 0) {
                $clientId = $connection->clientId();
                Async::run(fn () => $this->execute(['CLIENT', 'UNBLOCK', $clientId]))->ignore();
            }
            throw $e;
        } finally {
            $this->dedicated->release($connection);
        }
    }

    /**
     * BLPOP: the first element of the first non-empty list, waiting up to $timeout seconds
     * (0: for ever); null when none came.
     *
     * @param list<string> $keys
     * @return array{string, string}|null [key, element]
     */
    public function blPop(array $keys, float $timeout, ?Cancellation $cancellation = null): ?array
    {
        return self::keyAndElement($this->blocking(['BLPOP', ...$keys, $timeout], $cancellation));
    }

    /**
     * @param list<string> $keys
     * @return array{string, string}|null [key, element]
     */
    public function brPop(array $keys, float $timeout, ?Cancellation $cancellation = null): ?array
    {
        return self::keyAndElement($this->blocking(['BRPOP', ...$keys, $timeout], $cancellation));
    }

    /**
     * A subscriber on a connection of its own, subscribed to $channels, $patterns and
     * $shardChannels (see Subscriber).
     *
     * @param list<string> $channels
     * @param list<string> $patterns
     * @param list<string> $shardChannels
     * @param int $maxQueuedBytes how much the subscriber holds for an application that falls
     *        behind (messages' bytes plus ~200 each) before it stops reading (docs/REDIS.md)
     */
    public function subscribe(array $channels = [], array $patterns = [], array $shardChannels = [], ?Cancellation $cancellation = null, int $maxQueuedBytes = 64 * 1024 * 1024): Subscriber
    {
        return Subscriber::open($this->config->connection->with(commandTimeout: null, tracking: false), $channels, $patterns, $shardChannels, $cancellation, maxQueuedBytes: $maxQueuedBytes);
    }

    public function protocol(): int
    {
        return $this->live(null)->protocol();
    }

    /** The shared connection (opened if needed): its client id, protocol, server version. */
    public function sharedConnection(?Cancellation $cancellation = null): Connection
    {
        return $this->live($cancellation);
    }

    /** The dedicated connections' pool statistics. */
    public function statistics(): PoolStatistics
    {
        return $this->dedicated->statistics();
    }

    /** @return array{hits: int, misses: int, invalidations: int, entries: int} the client-side cache's counters */
    public function cacheStatistics(): array
    {
        return [
            'hits' => $this->cache->hits ?? 0,
            'misses' => $this->cache->misses ?? 0,
            'invalidations' => $this->cache->invalidations ?? 0,
            'entries' => $this->cache?->count() ?? 0,
        ];
    }

    public function config(): ClientConfig
    {
        return $this->config;
    }

    /** Closes every connection; commands in flight get a ConnectionLostException. */
    public function close(): void
    {
        if ($this->closed) {
            return;
        }
        $this->closed = true;
        $this->shared?->close();
        $this->shared = null;
        $this->dedicated->close();
    }

    private function acquire(?Cancellation $cancellation): Connection
    {
        try {
            return $this->dedicated->acquire($cancellation);
        } catch (SharedPoolTimeoutException $e) {
            throw new PoolTimeoutException($e->getMessage(), 0, $e);
        } catch (PoolClosedException $e) {
            throw new RedisException('The Redis client is closed', 0, $e);
        }
    }

    /**
     * The shared connection, opened when there is none or when the server closed it while it
     * sat idle (CLIENT KILL, a restart, its idle timeout): seen before anything is sent on it
     * (Connection::isAlive(), a peek), so the command goes on a new connection instead of failing.
     */
    private function live(?Cancellation $cancellation): Connection
    {
        $connection = $this->shared;

        return $connection !== null && $connection->isAlive() ? $connection : $this->connect($cancellation);
    }

    /**
     * Queues $command on the shared connection and returns its number; $connection is the one it
     * went on. Connection::send() fails only before a byte of the command left (a write refused
     * at once, as on a unix socket the server closed just after the peek): then it never ran and
     * goes once more on a new connection. A command lost after it was sent fails in await() and
     * is never sent again.
     *
     * @param array<int, mixed> $command
     * @param-out Connection $connection
     */
    private function send(array $command, ?Cancellation $cancellation, ?Connection &$connection, bool $mayWithdraw = false): int
    {
        // A caller that gave up already sends nothing (once queued, a command goes out: its number is taken).
        $cancellation?->throwIfRequested();
        $connection = $this->live($cancellation);
        try {
            return $connection->send($command, false, $mayWithdraw);
        } catch (ConnectionLostException) {
            $connection = $this->connect($cancellation);

            return $connection->send($command, false, $mayWithdraw);
        }
    }

    /** GET on the shared connection; over RESP3 its reply fills the cache as it is read. */
    private function getThrough(string $key, bool $miss, ?Cancellation $cancellation): ?string
    {
        \assert($this->cache !== null);
        $command = ['GET', $key];
        $id = $this->send($command, $cancellation, $connection);
        if ($connection->protocol() === 3) { // over RESP2 no pushes: nothing is cached
            $this->cache->expect($id, $key, $miss);
        }
        $reply = $connection->await($id, $cancellation);
        if ($reply instanceof ErrorReply) {
            throw ErrorFactory::forReply($reply, $command);
        }

        return $reply === null ? null : (string) $reply;
    }

    /**
     * One connect attempt at a time, shared by every fiber that arrives while it runs; each waits
     * for it within its own cancellation, and the attempt takes none (SharedAttempt).
     */
    private function connect(?Cancellation $cancellation): Connection
    {
        if ($this->closed) {
            throw new RedisException('The Redis client is closed');
        }

        return $this->connects->await($this->openShared(...), $cancellation);
    }

    private function openShared(): Connection
    {
        $this->shared = null;
        $connection = Connection::connect(
            $this->cache === null ? $this->config->connection : $this->config->connection->with(tracking: true),
        );
        if ($this->closed) {
            $connection->close();
            throw new RedisException('The Redis client is closed');
        }
        if ($this->cache !== null && $connection->protocol() === 3) {
            $this->cache->attach($connection);
        }

        return $this->shared = $connection;
    }

    /** @return array{string, string}|null */
    private static function keyAndElement(mixed $reply): ?array
    {
        if (!\is_array($reply) || \count($reply) !== 2) {
            return null;
        }

        return [(string) $reply[0], (string) $reply[1]];
    }
}
