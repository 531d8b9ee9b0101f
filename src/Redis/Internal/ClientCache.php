<?php

declare(strict_types=1);

namespace Bobbin\Redis\Internal;

use Bobbin\Redis\Connection;

/**
 * Client-side caching of GET (CLIENT TRACKING, RESP3): values read on the shared connection are
 * kept here, and the server's invalidation pushes for their keys remove them. A value is stored
 * by the reader as its reply is read, in wire order with the pushes, never by its caller later:
 * an invalidation read after the reply always wins. Everything goes when the connection does (the
 * server forgets what it tracked for it).
 *
 * @internal
 */
final class ClientCache
{
    /** @var array<string, ?string> oldest first */
    private array $values = [];
    /** @var array<int, string> reply number => key of a GET whose reply goes into the cache */
    private array $pending = [];
    public int $hits = 0;
    public int $misses = 0;
    public int $invalidations = 0;

    public function __construct(private readonly int $maxEntries)
    {
    }

    public function attach(Connection $connection): void
    {
        $this->clear();
        $connection->onPush($this->push(...));
        $connection->onReply($this->reply(...));
        $connection->onClose($this->clear(...));
    }

    public function has(string $key): bool
    {
        return \array_key_exists($key, $this->values);
    }

    public function get(string $key): ?string
    {
        $this->hits++;

        return $this->values[$key];
    }

    /** The GET numbered $id is in flight: its reply fills the cache ($miss: the cache was asked first and had no answer). */
    public function expect(int $id, string $key, bool $miss = true): void
    {
        if ($miss) {
            $this->misses++;
        }
        $this->pending[$id] = $key;
    }

    /** A write through this client: its own invalidation push comes after its reply, too late for its next read. */
    public function forget(string $key): void
    {
        unset($this->values[$key]);
        // A GET of it sent before this write must not fill the cache with the value before it.
        foreach (\array_keys($this->pending, $key, true) as $id) {
            unset($this->pending[$id]);
        }
    }

    public function count(): int
    {
        return \count($this->values);
    }

    public function clear(): void
    {
        $this->values = [];
        $this->pending = [];
    }

    private function reply(int $id, mixed $reply): void
    {
        if (!isset($this->pending[$id])) {
            return;
        }
        $key = $this->pending[$id];
        unset($this->pending[$id]);
        if ($reply !== null && !\is_string($reply)) {
            return; // an error reply
        }
        if (\count($this->values) >= $this->maxEntries) {
            unset($this->values[\array_key_first($this->values)]);
        }
        $this->values[$key] = $reply;
    }

    private function push(Push $push): void
    {
        if ($push->kind() !== 'invalidate') {
            return;
        }
        $this->invalidations++;
        $keys = $push->items[1] ?? null;
        if (!\is_array($keys)) {
            $this->values = []; // FLUSHALL / FLUSHDB: everything
            return;
        }
        foreach ($keys as $key) {
            if (\is_string($key)) {
                unset($this->values[$key]);
            }
        }
    }
}
