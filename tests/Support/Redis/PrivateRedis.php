<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Redis;

/**
 * A redis-server of a test's own (scripts/redis with BOBBIN_REDIS_HOME under the checkout's
 * var/), for what must not happen to the shared one: a restart, a changed idle timeout. It
 * listens on its own unix socket and free 127.0.0.1 ports, records its PID and is stopped by
 * that PID (scripts/redis stop), never by name.
 */
final class PrivateRedis
{
    private bool $running = true;

    private function __construct(private readonly string $home)
    {
    }

    public static function start(string $name): self
    {
        $home = \dirname(__DIR__, 3) . '/var/redis-' . $name . '-' . \getmypid();
        EmbeddedRedis::scriptIn($home, 'start');

        return new self($home);
    }

    /** redis:// over the unix socket, as the ACL user bobbin. */
    public function url(): string
    {
        return EmbeddedRedis::scriptIn($this->home, 'url');
    }

    /** redis:// over TCP on 127.0.0.1. */
    public function tcpUrl(): string
    {
        return EmbeddedRedis::scriptIn($this->home, 'url --tcp');
    }

    /** Stops the server (by its recorded PID) and starts it again on the same socket and port; nothing is kept. */
    public function restart(): void
    {
        EmbeddedRedis::scriptIn($this->home, 'restart');
    }

    /** Runs redis-cli against this server and returns its output. */
    public function cli(string ...$arguments): string
    {
        return EmbeddedRedis::scriptIn($this->home, 'cli ' . \implode(' ', \array_map('escapeshellarg', $arguments)));
    }

    /** Stops the server by its recorded PID and removes its folder. */
    public function stop(): void
    {
        if (!$this->running) {
            return;
        }
        $this->running = false;
        EmbeddedRedis::scriptIn($this->home, 'stop');
        \exec('rm -rf ' . \escapeshellarg($this->home));
    }
}
