<?php

declare(strict_types=1);

namespace Bobbin\Redis;

use Bobbin\Async\Cancellation;
use Bobbin\Redis\Exception\NoScriptException;

/**
 * The typed helpers of Executor, all built on execute(). Replies are normalised across RESP2 and
 * RESP3 (a hash is an array in both; a score a float in both).
 *
 * Over 400 lines: one short method per Redis command family an application calls, nothing else.
 *
 * @phpstan-require-implements Executor
 */
trait ExecutesCommands
{
    public function command(string $name, mixed ...$arguments): mixed
    {
        $cancellation = null;
        if ($arguments !== [] && \end($arguments) instanceof Cancellation) {
            $cancellation = \array_pop($arguments);
        }

        return $this->execute([$name, ...\array_values($arguments)], $cancellation);
    }

    public function get(string $key, ?Cancellation $cancellation = null): ?string
    {
        $value = $this->execute(['GET', $key], $cancellation);

        return $value === null ? null : (string) $value;
    }

    public function set(string $key, string|int|float $value, ?float $ttl = null, SetCondition $condition = SetCondition::Always, ?Cancellation $cancellation = null): bool
    {
        $command = ['SET', $key, $value];
        if ($ttl !== null) {
            if ($ttl <= 0.0) {
                throw new \ValueError('A TTL must be positive');
            }
            \array_push($command, 'PX', \max(1, (int) \round($ttl * 1000)));
        }
        if ($condition !== SetCondition::Always) {
            $command[] = $condition->value;
        }

        return $this->execute($command, $cancellation) !== null;
    }

    /** @param list<string> $keys */
    public function mGet(array $keys, ?Cancellation $cancellation = null): array
    {
        if ($keys === []) {
            return [];
        }

        /** @var list<?string> */
        return $this->execute(['MGET', ...$keys], $cancellation);
    }

    /** @param array<string, string|int|float> $values */
    public function mSet(array $values, ?Cancellation $cancellation = null): void
    {
        $command = ['MSET'];
        foreach ($values as $key => $value) {
            \array_push($command, (string) $key, $value);
        }
        if ($values !== []) {
            $this->execute($command, $cancellation);
        }
    }

    /** @param string|list<string> $keys */
    public function del(string|array $keys, ?Cancellation $cancellation = null): int
    {
        $keys = (array) $keys;

        return $keys === [] ? 0 : (int) $this->execute(['DEL', ...$keys], $cancellation);
    }

    /** @param string|list<string> $keys */
    public function exists(string|array $keys, ?Cancellation $cancellation = null): int
    {
        $keys = (array) $keys;

        return $keys === [] ? 0 : (int) $this->execute(['EXISTS', ...$keys], $cancellation);
    }

    public function incr(string $key, int $by = 1, ?Cancellation $cancellation = null): int
    {
        return (int) $this->execute($by === 1 ? ['INCR', $key] : ['INCRBY', $key, $by], $cancellation);
    }

    public function incrByFloat(string $key, float $by, ?Cancellation $cancellation = null): float
    {
        return (float) $this->execute(['INCRBYFLOAT', $key, $by], $cancellation);
    }

    public function expire(string $key, float $ttl, ?Cancellation $cancellation = null): bool
    {
        return $this->execute(['PEXPIRE', $key, \max(1, (int) \round($ttl * 1000))], $cancellation) === 1;
    }

    public function persist(string $key, ?Cancellation $cancellation = null): bool
    {
        return $this->execute(['PERSIST', $key], $cancellation) === 1;
    }

    public function ttl(string $key, ?Cancellation $cancellation = null): ?float
    {
        $ms = (int) $this->execute(['PTTL', $key], $cancellation);

        return match (true) {
            $ms === -2 => null,
            $ms === -1 => \INF,
            default => $ms / 1000,
        };
    }

    public function hGet(string $key, string $field, ?Cancellation $cancellation = null): ?string
    {
        $value = $this->execute(['HGET', $key, $field], $cancellation);

        return $value === null ? null : (string) $value;
    }

    /** @param array<string, string|int|float> $fields */
    public function hSet(string $key, array $fields, ?Cancellation $cancellation = null): int
    {
        $command = ['HSET', $key];
        foreach ($fields as $field => $value) {
            \array_push($command, (string) $field, $value);
        }

        return (int) $this->execute($command, $cancellation);
    }

    public function hGetAll(string $key, ?Cancellation $cancellation = null): array
    {
        /** @var array<string, string> */
        $reply = $this->execute(['HGETALL', $key], $cancellation);

        /** @var array<string, string> */
        return \is_array($reply) && $this->protocol() === 2 ? self::pairs($reply) : (\is_array($reply) ? $reply : []);
    }

    /** @param list<string> $fields */
    public function hDel(string $key, array $fields, ?Cancellation $cancellation = null): int
    {
        return $fields === [] ? 0 : (int) $this->execute(['HDEL', $key, ...$fields], $cancellation);
    }

    public function hIncrBy(string $key, string $field, int $by = 1, ?Cancellation $cancellation = null): int
    {
        return (int) $this->execute(['HINCRBY', $key, $field, $by], $cancellation);
    }

    public function hLen(string $key, ?Cancellation $cancellation = null): int
    {
        return (int) $this->execute(['HLEN', $key], $cancellation);
    }

    /** @param list<string> $values */
    public function lPush(string $key, array $values, ?Cancellation $cancellation = null): int
    {
        return (int) $this->execute(['LPUSH', $key, ...$values], $cancellation);
    }

    /** @param list<string> $values */
    public function rPush(string $key, array $values, ?Cancellation $cancellation = null): int
    {
        return (int) $this->execute(['RPUSH', $key, ...$values], $cancellation);
    }

    public function lPop(string $key, ?Cancellation $cancellation = null): ?string
    {
        $value = $this->execute(['LPOP', $key], $cancellation);

        return $value === null ? null : (string) $value;
    }

    public function rPop(string $key, ?Cancellation $cancellation = null): ?string
    {
        $value = $this->execute(['RPOP', $key], $cancellation);

        return $value === null ? null : (string) $value;
    }

    public function lRange(string $key, int $start = 0, int $stop = -1, ?Cancellation $cancellation = null): array
    {
        /** @var list<string> */
        return $this->execute(['LRANGE', $key, $start, $stop], $cancellation);
    }

    public function lLen(string $key, ?Cancellation $cancellation = null): int
    {
        return (int) $this->execute(['LLEN', $key], $cancellation);
    }

    /** @param list<string> $members */
    public function sAdd(string $key, array $members, ?Cancellation $cancellation = null): int
    {
        return (int) $this->execute(['SADD', $key, ...$members], $cancellation);
    }

    /** @param list<string> $members */
    public function sRem(string $key, array $members, ?Cancellation $cancellation = null): int
    {
        return (int) $this->execute(['SREM', $key, ...$members], $cancellation);
    }

    public function sMembers(string $key, ?Cancellation $cancellation = null): array
    {
        /** @var list<string> */
        return $this->execute(['SMEMBERS', $key], $cancellation);
    }

    public function sIsMember(string $key, string $member, ?Cancellation $cancellation = null): bool
    {
        return $this->execute(['SISMEMBER', $key, $member], $cancellation) === 1;
    }

    public function sCard(string $key, ?Cancellation $cancellation = null): int
    {
        return (int) $this->execute(['SCARD', $key], $cancellation);
    }

    /** @param array<string, float|int> $scores member => score */
    public function zAdd(string $key, array $scores, ?Cancellation $cancellation = null): int
    {
        $command = ['ZADD', $key];
        foreach ($scores as $member => $score) {
            \array_push($command, (float) $score, (string) $member);
        }

        return (int) $this->execute($command, $cancellation);
    }

    public function zScore(string $key, string $member, ?Cancellation $cancellation = null): ?float
    {
        $score = $this->execute(['ZSCORE', $key, $member], $cancellation);

        return $score === null ? null : self::score($score);
    }

    public function zIncrBy(string $key, string $member, float $by, ?Cancellation $cancellation = null): float
    {
        return self::score($this->execute(['ZINCRBY', $key, $by, $member], $cancellation));
    }

    /** @param list<string> $members */
    public function zRem(string $key, array $members, ?Cancellation $cancellation = null): int
    {
        return (int) $this->execute(['ZREM', $key, ...$members], $cancellation);
    }

    public function zCard(string $key, ?Cancellation $cancellation = null): int
    {
        return (int) $this->execute(['ZCARD', $key], $cancellation);
    }

    public function zRange(string $key, int $start = 0, int $stop = -1, ?Cancellation $cancellation = null): array
    {
        /** @var list<string> */
        return $this->execute(['ZRANGE', $key, $start, $stop], $cancellation);
    }

    public function zRangeWithScores(string $key, int $start = 0, int $stop = -1, ?Cancellation $cancellation = null): array
    {
        $reply = $this->execute(['ZRANGE', $key, $start, $stop, 'WITHSCORES'], $cancellation);
        $scores = [];
        if (!\is_array($reply)) {
            return $scores;
        }
        if (isset($reply[0]) && \is_array($reply[0])) {
            foreach ($reply as [$member, $score]) { // RESP3: [member, score] pairs
                $scores[(string) $member] = self::score($score);
            }

            return $scores;
        }
        for ($i = 0; $i + 1 < \count($reply); $i += 2) { // RESP2: member, score, member, score…
            $scores[(string) $reply[$i]] = self::score($reply[$i + 1]);
        }

        return $scores;
    }

    public function scan(?string $match = null, int $count = 100, ?string $type = null, ?Cancellation $cancellation = null): \Generator
    {
        $options = [];
        if ($match !== null) {
            \array_push($options, 'MATCH', $match);
        }
        \array_push($options, 'COUNT', $count);
        if ($type !== null) {
            \array_push($options, 'TYPE', $type);
        }
        foreach ($this->cursor(['SCAN'], $options, $cancellation) as $key) {
            yield (string) $key;
        }
    }

    public function hScan(string $key, ?string $match = null, int $count = 100, ?Cancellation $cancellation = null): \Generator
    {
        $options = $match === null ? ['COUNT', $count] : ['MATCH', $match, 'COUNT', $count];
        $field = null;
        foreach ($this->cursor(['HSCAN', $key], $options, $cancellation) as $item) {
            if ($field === null) {
                $field = (string) $item;
                continue;
            }
            yield $field => (string) $item;
            $field = null;
        }
    }

    public function sScan(string $key, ?string $match = null, int $count = 100, ?Cancellation $cancellation = null): \Generator
    {
        $options = $match === null ? ['COUNT', $count] : ['MATCH', $match, 'COUNT', $count];
        foreach ($this->cursor(['SSCAN', $key], $options, $cancellation) as $member) {
            yield (string) $member;
        }
    }

    public function zScan(string $key, ?string $match = null, int $count = 100, ?Cancellation $cancellation = null): \Generator
    {
        $options = $match === null ? ['COUNT', $count] : ['MATCH', $match, 'COUNT', $count];
        $member = null;
        foreach ($this->cursor(['ZSCAN', $key], $options, $cancellation) as $item) {
            if ($member === null) {
                $member = (string) $item;
                continue;
            }
            yield $member => self::score($item);
            $member = null;
        }
    }

    /**
     * @param list<string> $keys
     * @param list<string|int|float> $arguments
     */
    public function eval(string $script, array $keys = [], array $arguments = [], ?Cancellation $cancellation = null): mixed
    {
        return $this->execute(['EVAL', $script, \count($keys), ...$keys, ...$arguments], $cancellation);
    }

    /**
     * @param list<string> $keys
     * @param list<string|int|float> $arguments
     */
    public function evalSha(string $sha1, array $keys = [], array $arguments = [], ?Cancellation $cancellation = null): mixed
    {
        return $this->execute(['EVALSHA', $sha1, \count($keys), ...$keys, ...$arguments], $cancellation);
    }

    /**
     * @param list<string> $keys
     * @param list<string|int|float> $arguments
     */
    public function evalScript(string $script, array $keys = [], array $arguments = [], ?Cancellation $cancellation = null): mixed
    {
        try {
            return $this->evalSha(\sha1($script), $keys, $arguments, $cancellation);
        } catch (NoScriptException) {
            // Not cached on this server (yet, or any more after a restart): EVAL runs and caches it.
            return $this->eval($script, $keys, $arguments, $cancellation);
        }
    }

    public function publish(string $channel, string $message, ?Cancellation $cancellation = null): int
    {
        return (int) $this->execute(['PUBLISH', $channel, $message], $cancellation);
    }

    public function ping(?Cancellation $cancellation = null): void
    {
        $this->execute(['PING'], $cancellation);
    }

    /**
     * @param list<string> $command
     * @param list<string|int> $options
     * @return \Generator<int, mixed>
     */
    private function cursor(array $command, array $options, ?Cancellation $cancellation): \Generator
    {
        $cursor = '0';
        do {
            $reply = $this->execute([...$command, $cursor, ...$options], $cancellation);
            if (!\is_array($reply) || \count($reply) !== 2 || !\is_array($reply[1])) {
                throw new Exception\ProtocolException(\sprintf('%s answered with something else than a cursor and a list', $command[0]));
            }
            $cursor = (string) $reply[0];
            yield from $reply[1];
        } while ($cursor !== '0');
    }

    /**
     * A RESP2 flat list of pairs as a map.
     *
     * @param array<mixed> $reply
     * @return array<int|string, mixed>
     */
    private static function pairs(array $reply): array
    {
        $map = [];
        for ($i = 0; $i + 1 < \count($reply); $i += 2) {
            $map[(string) $reply[$i]] = $reply[$i + 1];
        }

        return $map;
    }

    private static function score(mixed $score): float
    {
        return match (true) {
            \is_float($score) => $score,
            $score === 'inf', $score === '+inf' => \INF,
            $score === '-inf' => -\INF,
            default => (float) $score,
        };
    }
}
