<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Differential;

use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Async\CancellationSource;
use Bobbin\Async\CancelledException;
use Bobbin\Async\Future;
use Bobbin\MessagePack\Extension\Decimal;
use Bobbin\MessagePack\Extension\Uuid;
use Bobbin\MessagePack\Map;
use Bobbin\MessagePack\UInt64;
use Bobbin\Tarantool\Connection;
use Bobbin\Tarantool\Iterator;
use Bobbin\Tests\Support\Differential\DifferentialTestCase;
use Bobbin\Tests\Support\Differential\Differences;
use Bobbin\Tests\Support\Differential\MessagePackValues;
use Bobbin\Tests\Support\Tarantool\EmbeddedTarantool;
use Random\Randomizer;

/**
 * Random MessagePack values (MessagePackValues: ints at every width edge and uint 64 above
 * PHP_INT_MAX, doubles of any bit pattern, float 32, str, bin of every byte, arrays, maps,
 * nesting, nil, booleans, Tarantool's decimal and uuid) inserted by Bobbin and read by the
 * server's own Lua, and stored by Lua and read by Bobbin.
 *
 * Bobbin → Tarantool: each stored field is described by Lua (MessagePackValues::LUA_DESCRIBE)
 * and the tuple's bytes, as the server holds them, are decoded by php-msgpack (an encoder and
 * decoder nobody here wrote); both must match the value Bobbin was given. Tarantool → Bobbin:
 * values packed by php-msgpack are decoded by Lua's msgpack.decode(), extension values made by
 * Lua's decimal.new(), uuid.fromstr() and tonumber64(), the tuple inserted by Lua, then selected
 * by Bobbin.
 *
 * What Debian's Tarantool 2.6 limits: its Lua loses a uuid nested in an array or map (so uuids
 * are drawn only as a whole field), and uuid.fromstr() takes only RFC 4122 variants. Lua has one number type, so Lua tells neither an integer
 * from an integral double nor (in 5.1) str from bin; a value Lua re-encodes comes back as an
 * integer and a str (MessagePackValues::fromLua()), and its NaN as LuaJIT's own NaN. There is no
 * datetime type before 2.10 (the codec's datetime is tested against the fake server only), and
 * the error extension is left to ValueTypesTest.
 */
final class TarantoolDifferentialTest extends DifferentialTestCase
{
    private ?Connection $connection = null;
    private string $space = '';

    protected function setUp(): void
    {
        $this->connection = Connection::connect(EmbeddedTarantool::url());
        $this->space = 'diff_' . \bin2hex(\random_bytes(4));
        $this->connection->eval("box.schema.space.create(...):create_index('pk', {parts = {1, 'unsigned'}})", [$this->space]);
    }

    protected function tearDown(): void
    {
        $this->connection?->eval('box.space[...]:drop()', [$this->space]);
        $this->connection?->close();
    }

    public function testValuesBobbinInsertsAreTheValuesTarantoolsLuaAndPhpMsgpackRead(): void
    {
        $random = $this->random();
        $connection = $this->connection();
        $values = [];
        $count = self::cases(1200);
        for ($id = 1; $id <= $count; $id++) {
            $values[$id] = MessagePackValues::draw($random);
            $connection->insert($this->space, [$id, $values[$id]]);
        }
        [$described, $raw] = $this->describedByLua(1, $count);

        $differ = [];
        foreach ($values as $id => $value) {
            $expected = MessagePackValues::describe($value);
            if (($described[$id] ?? null) !== $expected) {
                $differ[] = \sprintf('value %d as Lua sees it: expected %s, got %s', $id, \substr($expected, 0, 300), \substr((string) ($described[$id] ?? 'nothing'), 0, 300));
            }
            $decoded = \msgpack_unpack($raw[$id] ?? '');
            if (!Differences::same([$id, MessagePackValues::plain($value)], $decoded)) {
                $differ[] = \sprintf('value %d as php-msgpack decodes the stored tuple: expected %s, got %s', $id, Differences::show(MessagePackValues::plain($value)), Differences::show($decoded));
            }
        }
        self::assertSame([], \array_slice($differ, 0, 8), $this->where(\sprintf('%d differences in %d values', \count($differ), $count)));
    }

    public function testValuesTarantoolsLuaStoresAreTheValuesBobbinReads(): void
    {
        $random = $this->random();
        $connection = $this->connection();
        $expected = [];
        $count = self::cases(1200);
        for ($id = 1; $id <= $count; $id++) {
            $value = MessagePackValues::draw($random);
            $expected[$id] = MessagePackValues::fromLua($value);
            $connection->eval(self::LUA_BUILD . ' local v = build((msgpack.decode((select(3, ...))))) if v == nil then v = box.NULL end box.space[select(1, ...)]:insert{select(2, ...), v}', [$this->space, $id, \msgpack_pack(self::spec($value))]);
        }
        $read = [];
        foreach ($connection->select($this->space, [], iterator: Iterator::All) as $tuple) {
            $read[$tuple[0]] = \array_key_exists(1, $tuple) ? $tuple[1] : 'the field missing';
        }

        $differ = [];
        foreach ($expected as $id => $value) {
            $got = \array_key_exists($id, $read) ? $read[$id] : 'no tuple';
            if (!Differences::same(MessagePackValues::sortedMaps($value), MessagePackValues::sortedMaps($got))) {
                $differ[] = \sprintf('value %d: expected %s, got %s', $id, Differences::show($value), Differences::show($got));
            }
        }
        self::assertSame([], \array_slice($differ, 0, 8), $this->where(\sprintf('%d differences in %d values', \count($differ), $count)));
    }

    public function testFibersOnOneConnectionWithRandomCancellationsGetTheirOwnAnswers(): void
    {
        $random = $this->random();
        $connection = $this->connection();
        $fibers = 40;
        $perFiber = \max(1, \intdiv(self::cases(800), $fibers));
        $plans = [];
        for ($f = 0; $f < $fibers; $f++) {
            for ($k = 0; $k < $perFiber; $k++) {
                $plans[$f][] = [
                    'id' => $f * 10_000 + $k + 1,
                    'value' => MessagePackValues::draw($random),
                    'sleep' => $random->getInt(0, 3) === 0 ? $random->getInt(0, 5000) / 1e6 : 0.0,
                    'cancelInsert' => self::cancellationPlan($random),
                    'cancelRead' => self::cancellationPlan($random),
                ];
            }
        }
        $inserted = [];
        $wrong = [];
        $tasks = [];
        foreach ($plans as $f => $plan) {
            $tasks[] = Async::run(function () use ($f, $plan, $connection, &$inserted, &$wrong): void {
                foreach ($plan as $case) {
                    $id = $case['id'];
                    try {
                        $tuple = $connection->insert($this->space, [$id, $case['value']], cancellation: self::cancellation($case['cancelInsert']));
                        $inserted[$id] = true;
                        if (!Differences::same([$id, MessagePackValues::fromBobbin($case['value'])], $tuple)) {
                            $wrong[] = "fiber $f, insert $id answered " . Differences::show($tuple);
                        }
                    } catch (CancelledException) {
                        $inserted[$id] = null; // IPROTO cannot call a request back: it may have run
                    }
                    try {
                        // Answers come back out of order: each waits a random time on the server.
                        $answer = $connection->eval('local id, pause, space = ... require("fiber").sleep(pause) return id, box.space[space]:get(id)', [$id, $case['sleep'], $this->space], cancellation: self::cancellation($case['cancelRead']));
                    } catch (CancelledException) {
                        continue;
                    }
                    $want = $inserted[$id] === true || isset($answer[1]) ? [$id, [$id, MessagePackValues::fromBobbin($case['value'])]] : [$id];
                    if (!Differences::same($want, $answer)) {
                        $wrong[] = "fiber $f, read of $id: expected " . Differences::show($want) . ', got ' . Differences::show($answer);
                    }
                }
            });
        }
        Future::awaitAll($tasks);
        [$described] = $this->describedByLua(0, \PHP_INT_MAX);
        foreach ($plans as $plan) {
            foreach ($plan as $case) {
                $id = $case['id'];
                if (isset($described[$id]) || $inserted[$id] === true) {
                    $expected = MessagePackValues::describe($case['value']);
                    if (($described[$id] ?? null) !== $expected) {
                        $wrong[] = "value $id as Lua sees it: expected " . \substr($expected, 0, 200) . ', got ' . \substr((string) ($described[$id] ?? 'nothing'), 0, 200);
                    }
                }
            }
        }

        self::assertSame([], \array_slice($wrong, 0, 8), $this->where(\sprintf('%d wrong answers, %d inserts cancelled', \count($wrong), \count(\array_filter($inserted, static fn (?bool $done): bool => $done === null)))));
        self::assertSame(0, $connection->inFlight());
        self::assertSame([1], $connection->eval('return 1'), 'the connection still answers');
    }

    /** Lua that turns the markers of spec() back into Tarantool's own values. */
    private const LUA_BUILD = <<<'LUA'
        local msgpack, decimal, uuid = require('msgpack'), require('decimal'), require('uuid')
        local build
        build = function(v)
            if type(v) ~= 'table' then return v end
            if v['\0dec'] then return decimal.new(v['\0dec']) end
            if v['\0uuid'] then return uuid.fromstr(v['\0uuid']) end
            if v['\0u64'] then return tonumber64(v['\0u64']) end
            for k, x in pairs(v) do v[k] = build(x) end
            return v
        end
    LUA;

    /** $value for php-msgpack, which has no Binary, Float32 or extensions: markers Lua rebuilds. */
    private static function spec(mixed $value): mixed
    {
        return match (true) {
            $value instanceof Decimal => ["\0dec" => $value->value],
            $value instanceof Uuid => ["\0uuid" => $value->value],
            $value instanceof UInt64 => ["\0u64" => $value->digits],
            $value instanceof Map => \array_map(self::spec(...), $value->entries),
            \is_array($value) && $value === [] => [],
            default => \is_array($value) ? \array_map(self::spec(...), $value) : MessagePackValues::plain($value),
        };
    }

    /**
     * Lua's description and the raw bytes of the tuples with ids in [$from, $to], by id.
     *
     * @return array{array<int, string>, array<int, string>}
     */
    private function describedByLua(int $from, int $to): array
    {
        [$descriptions, $raw] = $this->connection()->eval(MessagePackValues::LUA_DESCRIBE . <<<'LUA'
            local space, from, to = ...
            local msgpack = require('msgpack')
            local described, raw = {}, {}
            for _, t in box.space[space]:pairs(from, {iterator = 'GE'}) do
                if t[1] > to then break end
                described[#described + 1] = {t[1], describe(t[2])}
                raw[#raw + 1] = {t[1], msgpack.encode(t)}
            end
            return described, raw
        LUA, [$this->space, $from, $to]);

        return [\array_column($descriptions, 1, 0), \array_column($raw, 1, 0)];
    }

    /** @return array{int, float} how (0: none, 1: cancelled before the call, 2: from another fiber a moment later, 3: at the end of this tick) and when */
    private static function cancellationPlan(Randomizer $random): array
    {
        return [$random->getInt(0, 9) < 7 ? 0 : $random->getInt(1, 3), $random->getInt(0, 3000) / 1e6];
    }

    /** @param array{int, float} $plan */
    private static function cancellation(array $plan): ?Cancellation
    {
        [$how, $after] = $plan;
        if ($how === 0) {
            return null;
        }
        $source = new CancellationSource();
        match ($how) {
            1 => $source->cancel(),
            2 => Async::run(static function () use ($source, $after): void {
                Async::delay($after);
                $source->cancel();
            }),
            default => Async::defer(static fn () => $source->cancel()),
        };

        return $source->token();
    }

    private function connection(): Connection
    {
        \assert($this->connection !== null);

        return $this->connection;
    }
}
