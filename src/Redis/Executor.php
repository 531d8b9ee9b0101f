<?php

declare(strict_types=1);

namespace Bobbin\Redis;

use Bobbin\Async\Cancellation;

/**
 * What runs Redis commands: a Client (one pipelined connection per process, shared by its
 * fibers), a Connection, or the immediate side of a Transaction. execute() does everything; the
 * rest are typed forms built on it (ExecutesCommands). Every call takes a last cancellation.
 *
 * Replies by RESP type: strings, ints, floats (RESP3 doubles), bools, null, lists (arrays and
 * sets), arrays keyed by field (RESP3 maps), VerbatimString, big numbers as strings of digits.
 * An error reply is a CommandException (WrongTypeException, NoScriptException…).
 */
interface Executor
{
    /**
     * One command: its name first, then its arguments (strings byte for byte, ints, floats).
     *
     * @param array<int, mixed> $command
     */
    public function execute(array $command, ?Cancellation $cancellation = null): mixed;

    /**
     * command('SET', $key, $value, 'EX', 60): the same as execute(); a Cancellation as the last
     * argument is the call's cancellation, not an argument.
     */
    public function command(string $name, mixed ...$arguments): mixed;

    /** 3 for RESP3, 2 for RESP2 (the connection's, after HELLO). */
    public function protocol(): int;

    public function get(string $key, ?Cancellation $cancellation = null): ?string;

    /**
     * SET, with a TTL in seconds (millisecond precision) and a condition; false when the
     * condition kept it from writing.
     */
    public function set(string $key, string|int|float $value, ?float $ttl = null, SetCondition $condition = SetCondition::Always, ?Cancellation $cancellation = null): bool;

    /**
     * @param list<string> $keys
     * @return list<?string> in the order of $keys, null for a missing key
     */
    public function mGet(array $keys, ?Cancellation $cancellation = null): array;

    /** @param array<string, string|int|float> $values */
    public function mSet(array $values, ?Cancellation $cancellation = null): void;

    /** @param string|list<string> $keys */
    public function del(string|array $keys, ?Cancellation $cancellation = null): int;

    /** @param string|list<string> $keys */
    public function exists(string|array $keys, ?Cancellation $cancellation = null): int;

    public function incr(string $key, int $by = 1, ?Cancellation $cancellation = null): int;

    public function incrByFloat(string $key, float $by, ?Cancellation $cancellation = null): float;

    /** A TTL in seconds (millisecond precision); false when the key does not exist. */
    public function expire(string $key, float $ttl, ?Cancellation $cancellation = null): bool;

    public function persist(string $key, ?Cancellation $cancellation = null): bool;

    /** Seconds left; INF for a key without expiry; null for no such key. */
    public function ttl(string $key, ?Cancellation $cancellation = null): ?float;

    public function hGet(string $key, string $field, ?Cancellation $cancellation = null): ?string;

    /** @param array<string, string|int|float> $fields */
    public function hSet(string $key, array $fields, ?Cancellation $cancellation = null): int;

    /**
     * Field => value (PHP makes a numeric field name an int key).
     *
     * @return array<string, string>
     */
    public function hGetAll(string $key, ?Cancellation $cancellation = null): array;

    /** @param list<string> $fields */
    public function hDel(string $key, array $fields, ?Cancellation $cancellation = null): int;

    public function hIncrBy(string $key, string $field, int $by = 1, ?Cancellation $cancellation = null): int;

    public function hLen(string $key, ?Cancellation $cancellation = null): int;

    /** @param list<string> $values */
    public function lPush(string $key, array $values, ?Cancellation $cancellation = null): int;

    /** @param list<string> $values */
    public function rPush(string $key, array $values, ?Cancellation $cancellation = null): int;

    public function lPop(string $key, ?Cancellation $cancellation = null): ?string;

    public function rPop(string $key, ?Cancellation $cancellation = null): ?string;

    /** @return list<string> */
    public function lRange(string $key, int $start = 0, int $stop = -1, ?Cancellation $cancellation = null): array;

    public function lLen(string $key, ?Cancellation $cancellation = null): int;

    /** @param list<string> $members */
    public function sAdd(string $key, array $members, ?Cancellation $cancellation = null): int;

    /** @param list<string> $members */
    public function sRem(string $key, array $members, ?Cancellation $cancellation = null): int;

    /** @return list<string> */
    public function sMembers(string $key, ?Cancellation $cancellation = null): array;

    public function sIsMember(string $key, string $member, ?Cancellation $cancellation = null): bool;

    public function sCard(string $key, ?Cancellation $cancellation = null): int;

    /** @param array<string, float|int> $scores member => score */
    public function zAdd(string $key, array $scores, ?Cancellation $cancellation = null): int;

    public function zScore(string $key, string $member, ?Cancellation $cancellation = null): ?float;

    public function zIncrBy(string $key, string $member, float $by, ?Cancellation $cancellation = null): float;

    /** @param list<string> $members */
    public function zRem(string $key, array $members, ?Cancellation $cancellation = null): int;

    public function zCard(string $key, ?Cancellation $cancellation = null): int;

    /** @return list<string> */
    public function zRange(string $key, int $start = 0, int $stop = -1, ?Cancellation $cancellation = null): array;

    /** @return array<string, float> member => score, in rank order */
    public function zRangeWithScores(string $key, int $start = 0, int $stop = -1, ?Cancellation $cancellation = null): array;

    /**
     * Every key (matching $match, of $type), one SCAN round trip per batch as the loop asks for
     * more. A key may come twice (SCAN's guarantee); keys added meanwhile may or may not come.
     *
     * @return \Generator<int, string>
     */
    public function scan(?string $match = null, int $count = 100, ?string $type = null, ?Cancellation $cancellation = null): \Generator;

    /** @return \Generator<string, string> field => value */
    public function hScan(string $key, ?string $match = null, int $count = 100, ?Cancellation $cancellation = null): \Generator;

    /** @return \Generator<int, string> */
    public function sScan(string $key, ?string $match = null, int $count = 100, ?Cancellation $cancellation = null): \Generator;

    /** @return \Generator<string, float> member => score */
    public function zScan(string $key, ?string $match = null, int $count = 100, ?Cancellation $cancellation = null): \Generator;

    /**
     * @param list<string> $keys
     * @param list<string|int|float> $arguments
     */
    public function eval(string $script, array $keys = [], array $arguments = [], ?Cancellation $cancellation = null): mixed;

    /**
     * @param list<string> $keys
     * @param list<string|int|float> $arguments
     */
    public function evalSha(string $sha1, array $keys = [], array $arguments = [], ?Cancellation $cancellation = null): mixed;

    /**
     * A Lua script by its SHA1 (EVALSHA), sent whole (EVAL) only when the server does not know
     * it yet (NOSCRIPT): the script travels once per server, not once per call.
     *
     * @param list<string> $keys
     * @param list<string|int|float> $arguments
     */
    public function evalScript(string $script, array $keys = [], array $arguments = [], ?Cancellation $cancellation = null): mixed;

    /** @return int how many subscribers received it */
    public function publish(string $channel, string $message, ?Cancellation $cancellation = null): int;

    public function ping(?Cancellation $cancellation = null): void;
}
