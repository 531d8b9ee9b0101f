<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Contract;

use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Async\CancellationSource;
use Bobbin\Async\CancelledException;
use Bobbin\Async\Future;
use Bobbin\Redis\Client;
use Bobbin\Redis\ClientConfig;
use Bobbin\Redis\Connection;
use Bobbin\Tests\Support\Redis\EmbeddedRedis;

/**
 * The Redis Client on the checkout's redis-server: write() goes over the connection the fibers
 * share, the "pooled" calls over its pool of dedicated connections (blocking()), where a call can
 * wait for a connection. Its connections carry a name of their own, so CLIENT LIST tells them
 * from the other tests'. slowWrite() is a BLMOVE into the key's list that an element pushed
 * $seconds later completes: cancelled and unblocked before that, it moves nothing.
 */
final class RedisUnderTest implements ClientUnderTest
{
    private readonly Client $client;
    private readonly string $name;
    /** Stops the pushes slowWrite() scheduled, so that none comes after close(). */
    private readonly CancellationSource $closing;

    public function __construct(int $poolSize, float $acquireTimeout)
    {
        $this->closing = new CancellationSource();
        $this->name = 'contract-' . \bin2hex(\random_bytes(5));
        $this->client = new Client(ClientConfig::fromUrl(self::url($this->name), poolMaxSize: $poolSize, acquireTimeout: $acquireTimeout));
    }

    public function write(string $key, ?Cancellation $cancellation = null): void
    {
        $this->client->set($this->key($key), '1', null, cancellation: $cancellation);
    }

    /**
     * Keeps the shared connection's next answer unread for $seconds (a script that spins on the
     * server): every command queued meanwhile waits behind it and leaves in one write.
     *
     * @return Future<mixed>
     */
    public function occupySharedConnection(float $seconds): Future
    {
        $script = "local s = redis.call('TIME') repeat local n = redis.call('TIME') until (n[1] - s[1]) * 1000000 + n[2] - s[2] > tonumber(ARGV[1]) return 1";

        return Async::run(fn (): mixed => $this->client->command('EVAL', $script, '0', (string) (int) ($seconds * 1_000_000)));
    }

    public function written(string $key): bool
    {
        return $this->outside(fn (Connection $c): bool => $c->execute(['EXISTS', $this->key($key)]) === 1);
    }

    public function echo(string $value, ?Cancellation $cancellation = null): string
    {
        return (string) $this->client->blocking(['ECHO', $value], $cancellation);
    }

    public function sleep(float $seconds, ?Cancellation $cancellation = null): void
    {
        $this->client->blocking(['BLPOP', $this->key('nothing-comes'), $seconds], $cancellation);
    }

    public function slowWrite(string $key, float $seconds, ?Cancellation $cancellation = null): void
    {
        $source = $this->key($key . ':source');
        Async::run(function () use ($source, $seconds): void {
            try {
                Async::delay($seconds, $this->closing);
            } catch (CancelledException) {
                return;
            }
            $this->outside(static fn (Connection $c): mixed => $c->execute(['RPUSH', $source, 'x']));
        })->ignore();
        $this->client->blocking(['BLMOVE', $source, $this->key($key), 'LEFT', 'RIGHT', $seconds + 5.0], $cancellation);
    }

    /** Kills the connections of this client that run a blocking command (CLIENT LIST shows no keys). */
    public function endSessionsRunning(string $key): void
    {
        $this->outside(function (Connection $c): void {
            foreach (\explode("\n", (string) $c->execute(['CLIENT', 'LIST', 'TYPE', 'normal'])) as $line) {
                if (\str_contains($line, " name={$this->name} ") && \preg_match('/ cmd=(blpop|blmove) /', $line) === 1 && \preg_match('/^id=(\d+) /', $line, $m) === 1) {
                    $c->execute(['CLIENT', 'KILL', 'ID', $m[1]]);
                }
            }
        });
    }

    public function close(): void
    {
        $this->closing->cancel();
        $this->client->close();
        $this->outside(function (Connection $c): void {
            $keys = $c->execute(['KEYS', $this->key('*')]);
            if (\is_array($keys) && $keys !== []) {
                $c->execute(['DEL', ...$keys]);
            }
        });
    }

    private function key(string $key): string
    {
        return $this->name . ':' . $key;
    }

    /**
     * @template T
     * @param \Closure(Connection): T $look
     * @return T
     */
    private function outside(\Closure $look): mixed
    {
        $connection = Connection::connect(self::url($this->name . '-outside'));
        try {
            return $look($connection);
        } finally {
            $connection->close();
        }
    }

    private static function url(string $name): string
    {
        $url = EmbeddedRedis::url();

        return $url . (\str_contains($url, '?') ? '&' : '?') . 'name=' . $name;
    }
}
