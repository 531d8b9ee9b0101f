<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Tarantool;

use Bobbin\MessagePack\Binary;
use Bobbin\MessagePack\Extension\BoxError;
use Bobbin\MessagePack\Extension\Decimal;
use Bobbin\MessagePack\Extension\Uuid;
use Bobbin\MessagePack\Float32;
use Bobbin\MessagePack\Map;
use Bobbin\MessagePack\UInt64;
use Bobbin\Tarantool\Connection;
use Bobbin\Tests\Support\Tarantool\EmbeddedTarantool;
use PHPUnit\Framework\TestCase;

/**
 * Every MessagePack type through the real server and back: what Lua sees of it (its type) and
 * what comes back.
 */
final class ValueTypesTest extends TestCase
{
    private static ?Connection $connection = null;

    public static function setUpBeforeClass(): void
    {
        self::$connection = Connection::connect(EmbeddedTarantool::url());
    }

    public static function tearDownAfterClass(): void
    {
        self::$connection?->close();
    }

    private function echo(mixed $value): array
    {
        \assert(self::$connection !== null);

        // The value back, and the name of the type Lua gave it.
        return self::$connection->eval(<<<'LUA'
            local v = ...
            local t = type(v)
            if t == 'cdata' then
                t = require('decimal').is_decimal(v) and 'decimal' or tostring(require('ffi').typeof(v))
            end
            return v, t
        LUA, [$value]);
    }

    public function testScalarsKeepTheirTypes(): void
    {
        self::assertSame([null, 'ctype<void *>'], $this->echo(null)); // box.NULL
        self::assertSame([true, 'boolean'], $this->echo(true));
        self::assertSame([false, 'boolean'], $this->echo(false));
        self::assertSame(['text', 'string'], $this->echo('text'));
        self::assertSame([1.5, 'number'], $this->echo(1.5));
        self::assertSame([1.5, 'number'], $this->echo(new Float32(1.5)));
        self::assertSame(["\x00\xff", 'string'], $this->echo(new Binary("\x00\xff")));
    }

    public function testIntegersOfEveryWidthComeBackExactly(): void
    {
        foreach ([0, 127, 128, 255, 65535, 65536, 4294967295, 4294967296, \PHP_INT_MAX, -1, -32, -33, -128, -129, -32768, -32769, -2147483648, -2147483649, \PHP_INT_MIN] as $int) {
            self::assertSame($int, $this->echo($int)[0], "$int");
        }
    }

    public function testAnUnsignedIntegerAbovePhpIntMaxComesBackAsItsDigits(): void
    {
        [$value, $type] = $this->echo(new UInt64('18446744073709551615'));

        self::assertSame('18446744073709551615', $value);
        self::assertSame('ctype<uint64_t>', $type);
        \assert(self::$connection !== null);
        self::assertSame(['18446744073709551614'], self::$connection->eval('return 18446744073709551614ULL'));
    }

    public function testArraysAndMapsNest(): void
    {
        $value = ['list' => [1, [2, 3], []], 'map' => ['a' => 1, 7 => 'seven'], 'empty' => new Map([])];

        // Lua tables keep no order: keys compared sorted.
        self::assertSame([['empty' => [], 'list' => [1, [2, 3], []], 'map' => [7 => 'seven', 'a' => 1]], 'table'], self::sorted($this->echo($value)));
        \assert(self::$connection !== null);
        self::assertSame([['x' => 1, 'y' => [true, false]]], self::sorted(self::$connection->eval('return {x = 1, y = {true, false}}')));
    }

    public function testDecimalsStayExact(): void
    {
        foreach (['0', '1', '-12.34', '0.0001', '99999999999999999999999999999999999999', '-1.10'] as $text) {
            [$value, $type] = $this->echo(new Decimal($text));
            self::assertInstanceOf(Decimal::class, $value);
            self::assertSame($text, $value->value);
            self::assertSame('decimal', $type);
        }
        \assert(self::$connection !== null);
        $computed = self::$connection->eval("return require('decimal').new('0.1') + require('decimal').new('0.2')")[0];
        self::assertEquals(new Decimal('0.3'), $computed);
    }

    public function testUuidsComeBackAsTheSameUuid(): void
    {
        $uuid = new Uuid('6e4e8bcb-8d8f-4a6c-9d5c-8a0b0f0a5f1e');

        self::assertEquals([$uuid, 'ctype<struct tt_uuid>'], $this->echo($uuid));
        \assert(self::$connection !== null);
        [$fromServer, $text] = self::$connection->eval("local u = require('uuid').new() return u, u:str()");
        self::assertInstanceOf(Uuid::class, $fromServer);
        self::assertSame($text, $fromServer->value);
    }

    public function testAnErrorObjectIsAnErrorExtensionWhenTheSessionAsksForIt(): void
    {
        \assert(self::$connection !== null);
        [$error] = self::$connection->eval(<<<'LUA'
            box.session.settings.error_marshaling_enabled = true
            local e = box.error.new({code = 42, reason = 'custom reason', type = 'MyError'})
            e:set_prev(box.error.new(box.error.ILLEGAL_PARAMS, 'the cause'))
            return e
        LUA);
        self::$connection->eval('box.session.settings.error_marshaling_enabled = false');

        self::assertInstanceOf(BoxError::class, $error);
        self::assertSame('custom reason', $error->message);
        self::assertSame('CustomError', $error->type);
        self::assertSame(42, $error->code);
        self::assertSame('MyError', $error->fields['custom_type'] ?? null);
        self::assertSame('Illegal parameters, the cause', $error->previous?->message);
        self::assertSame('ClientError', $error->previous->type);
    }

    /**
     * @param array<mixed> $value
     * @return array<mixed>
     */
    private static function sorted(array $value): array
    {
        if (!\array_is_list($value)) {
            \ksort($value, \SORT_STRING);
        }

        return \array_map(static fn (mixed $v): mixed => \is_array($v) ? self::sorted($v) : $v, $value);
    }
}
