<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Differential;

use Bobbin\MessagePack\Binary;
use Bobbin\MessagePack\Extension\Decimal;
use Bobbin\MessagePack\Extension\Uuid;
use Bobbin\MessagePack\Float32;
use Bobbin\MessagePack\Map;
use Bobbin\MessagePack\UInt64;
use Random\Randomizer;

/**
 * Random MessagePack values for the Tarantool differential test, and the forms they are compared
 * in: describe() gives the text Tarantool's Lua gives of a value (LUA_DESCRIBE), plain() what
 * php-msgpack decodes from its bytes (no extensions: an ext is null there), and fromLua() what
 * Bobbin must read of a value Lua stored.
 */
final class MessagePackValues
{
    /**
     * Lua that describes a value as the server's Lua sees it, in the same text describe() gives:
     * a number by its exact decimal digits when integral (a Lua number or an int64/uint64 cdata:
     * Lua tells an integral double from an integer by neither), else its 8 bytes in hex; strings
     * (str and bin: Lua 5.1 has one string type) in hex; decimals and uuids by their text;
     * arrays and maps (told apart by the metatable msgpack.decode gives them) by their
     * entries, a map's sorted.
     */
    public const LUA_DESCRIBE = <<<'LUA'
        local ffi = require('ffi')
        local decimal = require('decimal')
        local function hex(s) return (s:gsub('.', function(c) return string.format('%02x', c:byte()) end)) end
        local function bits(v)
            local u = ffi.new('union { double d; uint8_t b[8]; }')
            u.d = v
            local out = {}
            for i = 7, 0, -1 do out[#out + 1] = string.format('%02x', u.b[i]) end
            return table.concat(out)
        end
        local describe
        describe = function(v)
            if v == nil then return 'nil' end
            local t = type(v)
            if t == 'boolean' then return tostring(v) end
            if t == 'number' then
                if v ~= v then return 'nan' end
                if v == math.floor(v) and v > -math.huge and v < math.huge then return 'n:' .. string.format('%.0f', v) end
                return 'd:' .. bits(v)
            end
            if t == 'string' then return 's:' .. hex(v) end
            if t == 'cdata' then
                if decimal.is_decimal(v) then return 'dec:' .. tostring(v) end
                if ffi.istype('struct tt_uuid', v) then return 'uuid:' .. v:str() end
                return 'n:' .. tostring(v):gsub('U?LL$', '')
            end
            local mt = getmetatable(v)
            local serialize = mt and mt.__serialize
            local parts = {}
            if serialize == 'seq' or serialize == 'array' or serialize == 'sequence' then
                for i = 1, #v do parts[i] = describe(v[i]) end
                return '[' .. table.concat(parts, ',') .. ']'
            end
            for k, x in pairs(v) do parts[#parts + 1] = describe(k) .. '=' .. describe(x) end
            table.sort(parts)
            return '{' .. table.concat(parts, ',') .. '}'
        end
    LUA;

    /** A random value, nested up to 3 levels, with Bobbin's wrappers for bin, float 32, uint 64, map, decimal, uuid. */
    public static function draw(Randomizer $random, int $depth = 0, bool $extensions = true): mixed
    {
        $kind = $random->getInt(0, $depth >= 3 ? 11 : 13);

        return match ($kind) {
            0 => null,
            1 => $random->getInt(0, 1) === 1,
            2, 3 => RandomValues::edgyInt($random),
            4 => new UInt64(self::uint64Digits($random)),
            5 => $random->getInt(0, 3) === 0 ? (float) RandomValues::edgyInt($random) : RandomValues::double($random, false),
            6 => new Float32(self::float32($random)),
            7 => RandomValues::utf8($random, $random->getInt(0, 5) === 0 ? 300 : 20),
            8 => new Binary(RandomValues::bytes($random, $random->getInt(0, 5) === 0 ? 70000 : 20)),
            9 => $extensions ? new Decimal(self::decimalText($random)) : RandomValues::utf8($random, 5),
            // Tarantool 2.6's Lua loses a uuid inside an array or map (msgpack.decode refuses
            // it, a tuple field's decoder misreads what follows it, Lua stores it as nil).
            10 => $extensions && $depth === 0 ? new Uuid(self::uuidText($random)) : RandomValues::bytes($random, 5),
            11 => RandomValues::bytes($random, 40),
            12 => self::list($random, $depth, $extensions),
            default => self::map($random, $depth, $extensions),
        };
    }

    /** The text LUA_DESCRIBE gives of the value Bobbin encoded from $value. */
    public static function describe(mixed $value): string
    {
        return match (true) {
            $value === null => 'nil',
            \is_bool($value) => $value ? 'true' : 'false',
            \is_int($value) => 'n:' . $value,
            $value instanceof UInt64 => 'n:' . $value->digits,
            $value instanceof Float32 => self::describe(\unpack('g', \pack('g', $value->value))[1] ?? 0.0),
            \is_float($value) && \is_nan($value) => 'nan', // LuaJIT keeps one NaN of its own
            \is_float($value) => \is_finite($value) && \floor($value) === $value ? 'n:' . \sprintf('%.0f', $value) : 'd:' . \bin2hex(\pack('E', $value)),
            \is_string($value) => 's:' . \bin2hex($value),
            $value instanceof Binary => 's:' . \bin2hex($value->bytes),
            $value instanceof Decimal => 'dec:' . $value->value,
            $value instanceof Uuid => 'uuid:' . \strtolower($value->value),
            $value instanceof Map => self::describeMap($value->entries),
            \is_array($value) && \array_is_list($value) => '[' . \implode(',', \array_map(self::describe(...), $value)) . ']',
            \is_array($value) => self::describeMap($value),
            default => throw new \LogicException('cannot describe ' . \get_debug_type($value)),
        };
    }

    /** What php-msgpack decodes from Bobbin's encoding of $value (it knows no extension: null). */
    public static function plain(mixed $value): mixed
    {
        return match (true) {
            $value instanceof Binary => $value->bytes,
            $value instanceof Float32 => \unpack('g', \pack('g', $value->value))[1] ?? 0.0,
            $value instanceof UInt64 => \strlen($value->digits) < 19 || \strlen($value->digits) === 19 && \strcmp($value->digits, (string) \PHP_INT_MAX) <= 0 ? (int) $value->digits : $value->digits,
            $value instanceof Decimal, $value instanceof Uuid => null,
            $value instanceof Map && $value->entries === [] => new \stdClass(), // php-msgpack's empty map
            $value instanceof Map => \array_map(self::plain(...), $value->entries),
            \is_array($value) => \array_map(self::plain(...), $value),
            default => $value,
        };
    }

    /** What Bobbin must read of $value it encoded itself (a tuple stored as it was sent). */
    public static function fromBobbin(mixed $value): mixed
    {
        return match (true) {
            $value instanceof Decimal, $value instanceof Uuid => $value,
            $value instanceof Map => \array_map(self::fromBobbin(...), $value->entries),
            $value instanceof Binary, $value instanceof Float32, $value instanceof UInt64 => self::plain($value),
            \is_array($value) => \array_map(self::fromBobbin(...), $value),
            default => self::plain($value),
        };
    }

    /**
     * What Bobbin must read of $value after Tarantool's Lua decoded it and stored it: Lua has
     * one number type, so an integral double in [-2^63, 2^64) comes back as the integer (the
     * digits above PHP_INT_MAX), and a string is a str whether it came as str or bin. An ext is
     * the same object.
     */
    public static function fromLua(mixed $value): mixed
    {
        if (\is_float($value) && \is_finite($value) && \floor($value) === $value && $value >= -9.223372036854775808E18 && $value < 1.8446744073709551616E19) {
            return $value < 9.223372036854775808E18 ? (int) $value : \sprintf('%.0f', $value);
        }

        return match (true) {
            $value instanceof Binary => $value->bytes,
            $value instanceof Float32 => self::fromLua(\unpack('g', \pack('g', $value->value))[1] ?? 0.0),
            $value instanceof UInt64 => self::plain($value),
            $value instanceof Map => \array_map(self::fromLua(...), $value->entries),
            \is_array($value) => \array_map(self::fromLua(...), $value),
            default => $value,
        };
    }

    /** $value with every map's keys sorted: Lua keeps no order of a table's keys. */
    public static function sortedMaps(mixed $value): mixed
    {
        if (!\is_array($value)) {
            return $value;
        }
        if (!\array_is_list($value)) {
            \ksort($value, \SORT_STRING);
        }

        return \array_map(self::sortedMaps(...), $value);
    }

    /** @param array<array-key, mixed> $entries */
    private static function describeMap(array $entries): string
    {
        $parts = [];
        foreach ($entries as $key => $entry) {
            $parts[] = self::describe($key) . '=' . self::describe($entry);
        }
        \sort($parts, \SORT_STRING);

        return '{' . \implode(',', $parts) . '}';
    }

    /** @return list<mixed> */
    private static function list(Randomizer $random, int $depth, bool $extensions): array
    {
        $list = [];
        for ($i = $random->getInt(0, 5); $i > 0; $i--) {
            $list[] = self::draw($random, $depth + 1, $extensions);
        }

        return $list;
    }

    private static function map(Randomizer $random, int $depth, bool $extensions): mixed
    {
        $entries = [];
        for ($i = $random->getInt(0, 5); $i > 0; $i--) {
            $key = $random->getInt(0, 2) === 0 ? RandomValues::edgyInt($random) : 'k' . RandomValues::utf8($random, 6);
            $entries[$key] = self::draw($random, $depth + 1, $extensions);
        }
        // A map with no keys or keys 0, 1, 2… would be sent as an array: say it is a map.
        return $entries === [] || \array_is_list($entries) ? new Map($entries) : $entries;
    }

    private static function uint64Digits(Randomizer $random): string
    {
        $edges = ['9223372036854775807', '9223372036854775808', '9223372036854775809', '18446744073709551614', '18446744073709551615', '0', '4294967296'];

        return $random->getInt(0, 1) === 0 ? $edges[$random->getInt(0, \count($edges) - 1)] : \sprintf('%u', \unpack('q', $random->getBytes(8))[1] ?? 0);
    }

    private static function decimalText(Randomizer $random): string
    {
        $digits = (string) $random->getInt(1, 9);
        for ($i = $random->getInt(0, 30); $i > 0; $i--) {
            $digits .= (string) $random->getInt(0, 9);
        }
        $scale = $random->getInt(0, \min(\strlen($digits), 20));
        $text = $scale === 0 ? $digits : \substr($digits, 0, -$scale) . '.' . \substr($digits, -$scale);
        if (\str_starts_with($text, '.')) {
            $text = '0' . $text;
        }

        return ($random->getInt(0, 1) === 1 ? '-' : '') . $text;
    }

    private static function uuidText(Randomizer $random): string
    {
        // Version 4, RFC 4122 variant: Tarantool's uuid.fromstr() refuses other variants.
        $bytes = $random->getBytes(16);
        $bytes[6] = \chr(\ord($bytes[6]) & 0x0F | 0x40);
        $bytes[8] = \chr(\ord($bytes[8]) & 0x3F | 0x80);
        $hex = \bin2hex($bytes);

        return \sprintf('%s-%s-%s-%s-%s', \substr($hex, 0, 8), \substr($hex, 8, 4), \substr($hex, 12, 4), \substr($hex, 16, 4), \substr($hex, 20));
    }

    /**
     * Any float 32 bit pattern, except that a NaN is the one quiet NaN: a tuple field read in
     * Tarantool's Lua (`space:get(id)[2]`) drops a map entry whose value is the float 32 NaN
     * `ca fffa9be4` (sign and payload set) and keeps `7fc00000`, `ffc00000` and `7fa00000` (checked
     * by hand, 29 Nov 2026; an `eval` argument keeps all four), so the Lua-side description cannot
     * check such NaNs: they are not drawn.
     */
    private static function float32(Randomizer $random): float
    {
        $bytes = $random->getBytes(4);
        $value = \unpack('g', $bytes)[1] ?? 0.0;

        return \is_nan($value) ? \NAN : $value; // PHP's NAN is the quiet NaN, 7fc00000 as a float 32
    }
}
