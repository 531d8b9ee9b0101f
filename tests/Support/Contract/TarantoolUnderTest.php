<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Contract;

use Bobbin\Async\Cancellation;
use Bobbin\Tarantool\Connection;
use Bobbin\Tarantool\ConnectionPool;
use Bobbin\Tarantool\PoolConfig;
use Bobbin\Tests\Support\ServerProcess;
use Bobbin\Tests\Support\Tarantool\EmbeddedTarantool;
use Bobbin\Tests\Support\Tarantool\PrivateTarantool;

/**
 * The Tarantool client through its ConnectionPool, on the checkout's server, a space of its own
 * holding the marked keys, or through one Connection that every fiber shares (shared()): requests
 * are multiplexed on it, and those made in one tick behind another wait in its outbox until the
 * end of the tick. Tarantool 2.6 cannot end one session from another, so the one for
 * endSessionsRunning() runs on a tarantool of its own (private()), stopped and started again.
 */
final class TarantoolUnderTest implements ClientUnderTest
{
    private readonly Connection|ConnectionPool $pool;
    private readonly string $space;
    private readonly string $url;

    public function __construct(int $poolSize, float $acquireTimeout, private readonly ?ServerProcess $server = null, bool $shared = false)
    {
        $this->url = $server === null ? EmbeddedTarantool::url() : PrivateTarantool::url($server);
        $this->space = 'contract_' . \bin2hex(\random_bytes(5));
        $this->outside(fn (Connection $c): array => $c->eval(
            "local name = ...\nbox.schema.space.create(name, {format = {{'k', 'string'}}})\nbox.space[name]:create_index('primary', {parts = {1, 'string'}})",
            [$this->space],
        ));
        $this->pool = $shared ? Connection::connect($this->url) : new ConnectionPool(PoolConfig::fromUrl($this->url, maxSize: $poolSize, acquireTimeout: $acquireTimeout));
    }

    /** One on a tarantool of its own, which endSessionsRunning() stops and starts again. */
    public static function private(int $poolSize, float $acquireTimeout): self
    {
        return new self($poolSize, $acquireTimeout, PrivateTarantool::start());
    }

    /** One whose calls all go through one Connection the fibers share (no pool). */
    public static function shared(): self
    {
        return new self(1, 0.0, null, true);
    }

    public function write(string $key, ?Cancellation $cancellation = null): void
    {
        $this->pool->insert($this->space, [$key], cancellation: $cancellation);
    }

    public function written(string $key): bool
    {
        return $this->outside(fn (Connection $c): bool => $c->select($this->space, [$key]) !== []);
    }

    public function echo(string $value, ?Cancellation $cancellation = null): string
    {
        return (string) $this->pool->eval('return ...', [$value], cancellation: $cancellation)[0];
    }

    public function sleep(float $seconds, ?Cancellation $cancellation = null): void
    {
        $this->pool->eval("require('fiber').sleep(...)", [$seconds], cancellation: $cancellation);
    }

    public function slowWrite(string $key, float $seconds, ?Cancellation $cancellation = null): void
    {
        $this->pool->eval(
            "local seconds, space, key = ...\nrequire('fiber').sleep(seconds)\nbox.space[space]:insert{key}",
            [$seconds, $this->space, $key],
            cancellation: $cancellation,
        );
    }

    public function endSessionsRunning(string $key): void
    {
        if ($this->server === null) {
            throw new \LogicException('Only a TarantoolUnderTest::private() can end its sessions');
        }
        $this->server->restart();
    }

    public function close(): void
    {
        $this->pool->close();
        if ($this->server !== null) {
            $this->server->remove();

            return;
        }
        $this->outside(fn (Connection $c): array => $c->eval('box.space[...]:drop()', [$this->space]));
    }

    /**
     * @template T
     * @param \Closure(Connection): T $look
     * @return T
     */
    private function outside(\Closure $look): mixed
    {
        $connection = Connection::connect($this->url);
        try {
            return $look($connection);
        } finally {
            $connection->close();
        }
    }
}
