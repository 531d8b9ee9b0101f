<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Differential;

use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Async\CancellationSource;
use Bobbin\Async\CancelledException;
use Bobbin\Async\Future;
use Bobbin\Redis\Client;
use Bobbin\Redis\ClientConfig;
use Bobbin\Redis\Connection;
use Bobbin\Redis\ConnectionConfig;
use Bobbin\Redis\Exception\CommandException;
use Bobbin\Redis\VerbatimString;
use Bobbin\Tests\Support\Differential\DifferentialTestCase;
use Bobbin\Tests\Support\Differential\Differences;
use Bobbin\Tests\Support\Differential\RandomValues;
use Bobbin\Tests\Support\Redis\EmbeddedRedis;
use Bobbin\Tests\Support\Redis\Phpredis;
use Random\Randomizer;

/**
 * Random values of every RESP type written by Bobbin and read by phpredis (Debian's php8.2-redis,
 * RESP2 only), and written by phpredis and read by Bobbin over RESP3 (Client) and RESP2
 * (Connection with protocol 2). Strings, list elements, hash fields and values and set members
 * carry every byte value.
 *
 * The rules checked (docs/REDIS.md, "Commands and replies"): Bobbin over RESP2 gives exactly what
 * phpredis's rawCommand() gives, but for phpredis's own conversions — a nil is `false` there,
 * `null` in Bobbin. Over RESP3 Bobbin gives the typed value: a map is an array keyed by field (PHP
 * makes a decimal field an int key, as phpredis's hGetAll() does), a set a list, a double a float
 * that is exactly the double stored (RESP2 gives its %.17g text), a boolean a bool (RESP2: 1/0),
 * a big number its digits, a verbatim string a VerbatimString (RESP2: its text). Errors carry the
 * server's message in both clients. Map and set order is the server's: compared sorted.
 */
final class RedisDifferentialTest extends DifferentialTestCase
{
    private const KINDS = ['string', 'counter', 'list', 'hash', 'set', 'zset', 'missing', 'wrong type', 'double', 'boolean', 'big number', 'verbatim', 'map', 'resp3 set', 'nested'];

    private string $prefix = '';
    private ?\Redis $phpredis = null;

    protected function setUp(): void
    {
        $this->phpredis = Phpredis::connect(EmbeddedRedis::url());
        $this->prefix = 'diff:' . \bin2hex(\random_bytes(4)) . ':';
    }

    protected function tearDown(): void
    {
        if ($this->phpredis !== null) {
            $keys = $this->phpredis->keys($this->prefix . '*');
            if (\is_array($keys) && $keys !== []) {
                $this->phpredis->del($keys);
            }
            $this->phpredis->close();
        }
    }

    public function testValuesOfEveryRespTypeWrittenByEitherClientReadTheSameThroughBoth(): void
    {
        $random = $this->random();
        $resp3 = new Client(EmbeddedRedis::url());
        $resp2 = Connection::connect(ConnectionConfig::fromUrl(EmbeddedRedis::url())->with(protocol: 2));
        self::assertSame(3, $resp3->protocol());
        $differ = [];
        $count = self::cases(1500);
        for ($i = 0; $i < $count; $i++) {
            $kind = self::KINDS[$random->getInt(0, \count(self::KINDS) - 1)];
            $bobbinWrites = $random->getInt(0, 1) === 1;
            $key = $this->prefix . $i . ':' . RandomValues::bytes($random, 8);
            $case = "case $i ($kind, written by " . ($bobbinWrites ? 'Bobbin' : 'phpredis') . ')';
            foreach ($this->check($random, $kind, $key, $bobbinWrites, $resp3, $resp2) as $difference) {
                $differ[] = "$case: $difference";
            }
        }
        $resp3->close();
        $resp2->close();

        self::assertSame([], \array_slice($differ, 0, 8), $this->where(\sprintf('%d differences in %d cases', \count($differ), $count)));
    }

    /**
     * Fibers share one client (its pipelined connection and its client-side cache) and cancel a
     * third of their commands at random points. Each fiber's keys and values carry its id; each
     * fiber knows what its keys hold, or — after a cancelled write, which may or may not have
     * run — which values they may hold, so every reply is checked: a reply meant for another
     * fiber, or an old value read back, is caught. phpredis reads every key at the end.
     */
    public function testFibersSharingOneClientWithRandomCancellationsEachGetTheirOwnReplies(): void
    {
        $random = $this->random();
        $client = new Client(ClientConfig::fromUrl(EmbeddedRedis::url(), cacheSize: 1000));
        $fibers = 50;
        $perFiber = \max(1, \intdiv(self::cases(3000), $fibers));
        $plans = [];
        for ($f = 0; $f < $fibers; $f++) {
            for ($k = 0; $k < $perFiber; $k++) {
                $plans[$f][] = [
                    'op' => ['SET', 'GET', 'GET', 'DEL', 'ECHO', 'INCRBY'][$random->getInt(0, 5)],
                    'key' => $this->prefix . "f$f:" . $random->getInt(0, 3),
                    'value' => "f$f:" . RandomValues::bytes($random, 30),
                    'by' => $random->getInt(-1000, 1000),
                    'cancel' => $random->getInt(0, 2) === 0 ? $random->getInt(1, 4) : 0,
                ];
            }
        }
        $possible = []; // key => list of the values it may hold (null: none)
        $wrong = [];
        $cancelled = 0;
        $tasks = [];
        foreach ($plans as $f => $plan) {
            $counter = $this->prefix . "f$f:counter";
            $possible[$counter] = ['0'];
            $tasks[] = Async::run(function () use ($f, $plan, $client, $counter, &$possible, &$wrong, &$cancelled): void {
                foreach ($plan as $i => $step) {
                    $key = $step['op'] === 'INCRBY' ? $counter : $step['key'];
                    $before = $possible[$key] ?? [null];
                    $source = self::cancellationOf($step['cancel']);
                    try {
                        $reply = match ($step['op']) {
                            'SET' => $client->set($key, $step['value'], cancellation: $source),
                            'GET' => $client->get($key, $source),
                            'DEL' => $client->del($key, $source),
                            'ECHO' => $client->execute(['ECHO', $step['value']], $source),
                            default => $client->execute(['INCRBY', $key, $step['by']], $source),
                        };
                    } catch (CancelledException) {
                        $cancelled++;
                        $possible[$key] = match ($step['op']) {
                            'SET' => [...$before, $step['value']],
                            'DEL' => [...$before, null],
                            'INCRBY' => [...$before, ...\array_map(static fn (?string $v): string => (string) ((int) $v + $step['by']), $before)],
                            default => $before,
                        };
                        continue;
                    }
                    [$ok, $now] = match ($step['op']) {
                        'SET' => [$reply === true, [$step['value']]],
                        'GET' => [\in_array($reply, $before, true), [$reply]],
                        'DEL' => [$reply === 1 && \array_filter($before, \is_string(...)) !== [] || $reply === 0 && \in_array(null, $before, true), [null]],
                        'ECHO' => [$reply === $step['value'], $before],
                        default => [\is_int($reply) && \in_array((string) ($reply - $step['by']), $before, true), [(string) $reply]],
                    };
                    if (!$ok) {
                        $wrong[] = \sprintf('fiber %d, step %d (%s %s): got %s, the key may hold %s', $f, $i, $step['op'], $key, Differences::show($reply), Differences::show($before));
                    }
                    $possible[$key] = $now;
                }
            });
        }
        Future::awaitAll($tasks);
        foreach ($possible as $key => $values) {
            $stored = $this->phpredis()->get((string) $key);
            $stored = $stored === false ? null : $stored;
            $values = \str_ends_with((string) $key, ':counter') ? \array_map(static fn (?string $v): ?string => $v === '0' ? null : $v, $values) : $values;
            if (!\in_array($stored, $values, true) && !($stored === '0' && \in_array(null, $values, true))) {
                $wrong[] = \sprintf('%s read by phpredis: %s, may hold %s', $key, Differences::show($stored), Differences::show($values));
            }
        }
        $client->close();

        self::assertSame([], \array_slice($wrong, 0, 8), $this->where(\sprintf('%d wrong replies; %d commands cancelled', \count($wrong), $cancelled)));
        self::assertGreaterThan(0, $cancelled);
    }

    /** 0: none; 1: before the call; 2: at the end of this tick; 3: a tick later; 4: after up to 0.3 ms. */
    private static function cancellationOf(int $how): ?Cancellation
    {
        if ($how === 0) {
            return null;
        }
        $source = new CancellationSource();
        match ($how) {
            1 => $source->cancel(),
            2 => Async::defer(static fn () => $source->cancel()),
            3 => Async::run(static fn () => $source->cancel()),
            default => Async::run(static function () use ($source): void {
                Async::delay(\random_int(0, 300) / 1e6);
                $source->cancel();
            }),
        };

        return $source->token();
    }

    /** @return list<string> */
    private function check(Randomizer $random, string $kind, string $key, bool $bobbinWrites, Client $resp3, Connection $resp2): array
    {
        $phpredis = $this->phpredis();
        $write = function (array $command) use ($bobbinWrites, $resp3, $phpredis): mixed {
            return $bobbinWrites ? $resp3->execute($command) : $phpredis->rawCommand(...$command);
        };
        // Each reader's answer to one command: RESP3 typed, RESP2 raw, phpredis raw.
        $read = static function (array $command) use ($resp3, $resp2, $phpredis): array {
            return [$resp3->execute($command), $resp2->execute($command), $phpredis->rawCommand(...$command)];
        };

        switch ($kind) {
            case 'string':
                $value = RandomValues::bytes($random, $random->getInt(0, 3) === 0 ? 5000 : 40);
                $write(['SET', $key, $value]);

                return self::same('GET', [$value, $value, $value], $read(['GET', $key]));
            case 'counter':
                $base = $random->getInt(-1_000_000, 1_000_000);
                $by = $random->getInt(\PHP_INT_MIN >> 1, \PHP_INT_MAX >> 1);
                $write(['SET', $key, $base]);
                $bobbin = $resp3->execute(['INCRBY', $key, $by]);
                $phpredisReply = $phpredis->rawCommand('INCRBY', $key, -$by);

                return [
                    ...self::same('INCRBY', [$base + $by, $base], [$bobbin, $phpredisReply]),
                    ...self::same('GET', [(string) $base, (string) $base, (string) $base], $read(['GET', $key])),
                ];
            case 'list':
                $values = self::many($random, static fn (): string => RandomValues::bytes($random, 30));
                $write(['RPUSH', $key, ...$values]);

                return self::same('LRANGE', [$values, $values, $values], $read(['LRANGE', $key, 0, -1]));
            case 'hash':
                $fields = [];
                $flat = [];
                foreach (self::many($random, static fn (): string => RandomValues::bytes($random, 12)) as $field) {
                    $value = RandomValues::bytes($random, 30);
                    $fields[$field] = $value;
                    \array_push($flat, $field, $value);
                }
                $write(['HSET', $key, ...$flat]);
                [$map, $list, $raw] = $read(['HGETALL', $key]);

                return [
                    ...self::same('HGETALL', [self::sortedMap($fields), $list], [self::sortedMap($map), $raw]),
                    ...self::same('HGETALL as pairs', [self::sortedMap($fields), self::sortedMap($phpredis->hGetAll($key))], [self::sortedMap(self::pairs($list)), self::sortedMap($map)]),
                ];
            case 'set':
                $members = self::many($random, static fn (): string => RandomValues::bytes($random, 20));
                $write(['SADD', $key, ...$members]);
                $expected = self::sortedList(\array_values(\array_unique($members)));
                [$three, $two, $raw] = $read(['SMEMBERS', $key]);

                return self::same('SMEMBERS', [$expected, $expected, $raw], [self::sortedList($three), self::sortedList($two), $two]);
            case 'zset':
                $scores = [];
                $flat = [];
                foreach (self::many($random, static fn (): string => RandomValues::bytes($random, 10)) as $member) {
                    $score = self::score($random);
                    $scores[$member] = $score;
                    \array_push($flat, self::scoreText($score), $member);
                }
                $write(['ZADD', $key, ...$flat]);
                $pairs = [];
                foreach ($scores as $member => $score) {
                    $pairs[] = [(string) $member, $score];
                }
                // Redis's order: by score, then by the member's bytes.
                \usort($pairs, static fn (array $a, array $b): int => $a[1] <=> $b[1] ?: \strcmp($a[0], $b[0]));
                [$three, $two, $raw] = $read(['ZRANGE', $key, 0, -1, 'WITHSCORES']);
                $twoPairs = \array_map(static fn (array $p): array => [$p[0], self::double($p[1])], \array_chunk($two, 2));

                return self::same('ZRANGE WITHSCORES', [$pairs, $pairs, $raw], [$three, $twoPairs, $two]);
            case 'missing':
                return self::same('GET of no key', [null, null, false], $read(['GET', $key]));
            case 'wrong type':
                $write(['SET', $key, 'a string']);

                return self::sameError(['LPUSH', $key, 'x'], $resp3, $resp2, $phpredis);
            default:
                return $this->checkScript($random, $kind, $resp3, $resp2);
        }
    }

    /**
     * Replies built by a Lua script from random arguments, run by each client (the server
     * writes them, both read them); after redis.setresp(3) the script answers with RESP3's own
     * types, which the server turns into RESP2's for a RESP2 client.
     *
     * @return list<string>
     */
    private function checkScript(Randomizer $random, string $kind, Client $resp3, Connection $resp2): array
    {
        [$lua, $arguments, $typed, $flat, $value] = match ($kind) {
            'double' => (static function () use ($random): array {
                $value = RandomValues::double($random);

                return ['redis.setresp(3) return {double = tonumber(ARGV[1])}', [self::scoreText($value)], $value, self::scoreText($value), null];
            })(),
            'boolean' => (static function () use ($random): array {
                $value = $random->getInt(0, 1) === 1;

                return ["redis.setresp(3) return ARGV[1] == '1'", [$value ? '1' : '0'], $value, $value ? 1 : 0, null];
            })(),
            'big number' => (static function () use ($random): array {
                $digits = ($random->getInt(0, 1) === 1 ? '-' : '') . $random->getInt(1, 9) . \implode('', \array_map(static fn (): int => $random->getInt(0, 9), \range(0, $random->getInt(0, 60))));

                return ['redis.setresp(3) return {big_number = ARGV[1]}', [$digits], $digits, $digits, null];
            })(),
            'verbatim' => (static function () use ($random): array {
                $text = RandomValues::bytes($random, 60);

                return ["redis.setresp(3) return {verbatim_string = {format = 'txt', string = ARGV[1]}}", [$text], new VerbatimString('txt', $text), $text, null];
            })(),
            'map' => (static function () use ($random): array {
                $map = [];
                foreach (self::many($random, static fn (): string => RandomValues::bytes($random, 8)) as $field) {
                    $map[$field] = RandomValues::bytes($random, 20);
                }
                $arguments = [];
                foreach ($map as $field => $value) {
                    \array_push($arguments, (string) $field, $value);
                }

                return ['redis.setresp(3) local m = {} for i = 1, #ARGV, 2 do m[ARGV[i]] = ARGV[i + 1] end return {map = m}', $arguments, self::sortedMap($map), self::sortedMap($map), null];
            })(),
            'resp3 set' => (static function () use ($random): array {
                $members = self::many($random, static fn (): string => RandomValues::bytes($random, 8));
                $sorted = self::sortedList(\array_values(\array_unique($members)));

                return ['redis.setresp(3) local s = {} for _, m in ipairs(ARGV) do s[m] = true end return {set = s}', $members, $sorted, $sorted, null];
            })(),
            default => (static function () use ($random): array {
                $value = self::nested($random, 0);

                return ['return cjson.decode(ARGV[1])', [(string) \json_encode($value)], self::nullsOf($value), self::nullsOf($value), $value];
            })(),
        };
        $phpredis = $this->phpredis();
        $command = ['EVAL', $lua, 0, ...$arguments];
        $three = $resp3->execute($command);
        $two = $resp2->execute($command);
        $raw = $phpredis->rawCommand('EVAL', $lua, 0, ...$arguments);
        if (\in_array($kind, ['map', 'resp3 set'], true)) {
            [$three, $two, $raw] = $kind === 'map'
                ? [self::sortedMap($three), self::sortedMap(self::pairs($two)), self::sortedMap(self::pairs($raw))]
                : [self::sortedList($three), self::sortedList($two), self::sortedList($raw)];
        }
        if ($kind === 'double') {
            // RESP2 carries a double as its %.17g text: the same double once read.
            return self::same('EVAL double', [$typed, 'string', 'string', $typed, $typed], [$three, \get_debug_type($two), \get_debug_type($raw), self::double($two), self::double($raw)]);
        }

        // phpredis gives a nil as false, also inside an array.
        return self::same("EVAL $kind", [$typed, $flat, $kind === 'nested' ? $value : $flat], [$three, $two, $raw]);
    }

    /**
     * @param list<mixed> $expected Bobbin RESP3, Bobbin RESP2, phpredis
     * @param list<mixed> $actual
     * @return list<string>
     */
    private static function same(string $what, array $expected, array $actual): array
    {
        $names = ['Bobbin RESP3', 'Bobbin RESP2', 'phpredis', 'Bobbin RESP2 (as a float)', 'phpredis (as a float)'];
        $differ = [];
        foreach ($expected as $i => $want) {
            if (!Differences::same($want, $actual[$i] ?? null)) {
                $differ[] = \sprintf('%s read by %s: expected %s, got %s', $what, $names[$i], Differences::show($want), Differences::show($actual[$i] ?? null));
            }
        }

        return $differ;
    }

    /**
     * @param list<mixed> $command
     * @return list<string>
     */
    private static function sameError(array $command, Client $resp3, Connection $resp2, \Redis $phpredis): array
    {
        $messages = [];
        foreach ([static fn () => $resp3->execute($command), static fn () => $resp2->execute($command)] as $run) {
            try {
                $run();
                $messages[] = 'no error';
            } catch (CommandException $e) {
                $messages[] = $e->prefix() . ' ' . \explode(' (', \substr($e->getMessage(), \strlen($e->prefix()) + 1))[0];
            }
        }
        // phpredis answers an error reply with false and getLastError() (or throws, for some).
        try {
            $phpredis->clearLastError();
            $reply = $phpredis->rawCommand(...$command);
            $messages[] = $reply === false ? (string) $phpredis->getLastError() : 'no error';
        } catch (\RedisException $e) {
            $messages[] = $e->getMessage();
        }
        $wrongType = 'WRONGTYPE Operation against a key holding the wrong kind of value';

        return self::same('the error of ' . $command[0], [$wrongType, $wrongType, $wrongType], $messages);
    }

    /**
     * @template T
     * @param \Closure(): T $draw
     * @return list<T>
     */
    private static function many(Randomizer $random, \Closure $draw): array
    {
        return \array_map(static fn (): mixed => $draw(), \range(0, $random->getInt(0, 3) === 0 ? $random->getInt(0, 200) : $random->getInt(0, 8)));
    }

    private static function score(Randomizer $random): float
    {
        return match ($random->getInt(0, 5)) {
            0 => [\INF, -\INF, 0.0, 1.0, -1.0, \PHP_FLOAT_EPSILON, \PHP_FLOAT_MIN, \PHP_FLOAT_MAX][$random->getInt(0, 7)],
            1, 2 => (float) $random->getInt(-1000, 1000),
            default => RandomValues::double($random),
        } + 0.0; // -0.0 as 0.0: Redis keeps the sign and shows it
    }

    /** A double from RESP2's text for it. */
    private static function double(mixed $text): float
    {
        return match ($text) {
            'inf' => \INF,
            '-inf' => -\INF,
            default => \is_numeric($text) ? (float) $text : \NAN,
        };
    }

    /** A double as text Redis and Lua read back exactly (17 significant digits). */
    private static function scoreText(float $value): string
    {
        return match (true) {
            $value === \INF => 'inf',
            $value === -\INF => '-inf',
            default => \sprintf('%.17e', $value),
        };
    }

    /** A JSON-able nested list: strings, integers, nulls (Lua's false → nil), lists. */
    private static function nested(Randomizer $random, int $depth): mixed
    {
        return match ($depth > 3 ? $random->getInt(0, 2) : $random->getInt(0, 4)) {
            0 => RandomValues::utf8($random, 10),
            1 => $random->getInt(-1_000_000_000, 1_000_000_000),
            2 => false,
            default => \array_map(static fn (): mixed => self::nested($random, $depth + 1), \range(0, $random->getInt(0, 4))),
        };
    }

    private static function nullsOf(mixed $value): mixed
    {
        return match (true) {
            $value === false => null,
            \is_array($value) => \array_map(self::nullsOf(...), $value),
            default => $value,
        };
    }

    /**
     * @param list<mixed> $flat
     * @return array<array-key, mixed>
     */
    private static function pairs(array $flat): array
    {
        $map = [];
        foreach (\array_chunk($flat, 2) as [$field, $value]) {
            $map[$field] = $value;
        }

        return $map;
    }

    /**
     * @param array<array-key, mixed> $map
     * @return array<array-key, mixed>
     */
    private static function sortedMap(array $map): array
    {
        \ksort($map, \SORT_STRING);

        return $map;
    }

    /**
     * @param list<mixed> $list
     * @return list<mixed>
     */
    private static function sortedList(array $list): array
    {
        \sort($list, \SORT_STRING);

        return $list;
    }

    private function phpredis(): \Redis
    {
        \assert($this->phpredis !== null);

        return $this->phpredis;
    }
}
