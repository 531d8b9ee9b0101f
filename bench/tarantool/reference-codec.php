<?php

declare(strict_types=1);

/*
 * The codec half of bench/tarantool/reference.php: Bobbin\MessagePack against rybakit/msgpack
 * (Packer with FORCE_STR, BufferUnpacker), value kind by value kind.
 */

use Bobbin\MessagePack\Decoder;
use Bobbin\MessagePack\Encoder;
use MessagePack\BufferUnpacker;
use MessagePack\Packer;
use MessagePack\PackOptions;

/** @return array<string, mixed> the values compared, by label */
function codecCases(): array
{
    $select = [];
    for ($id = 1; $id <= 100; $id++) {
        $select[] = [$id, 'tuple_' . $id];
    }

    return [
        'select answer {48: 100 tuples {id, "tuple_" .. id}}' => [0x30 => $select],
        'nested map of 6 keys' => ['id' => 12345, 'name' => 'a name', 'price' => 12.5, 'tags' => ['a', 'b', 'c'], 'active' => true, 'nested' => ['x' => -7, 'y' => null, 'big' => 5000000000]],
        'positive fixint 7' => 7,
        'uint 16 1000' => 1000,
        'int 64 -5000000000' => -5000000000,
        'float 64' => 3.14159,
        'fixstr 10 B' => \str_repeat('a', 10),
        'str 8 100 B' => \str_repeat('b', 100),
        'str 16 1 KB' => \str_repeat('c', 1000),
        'str 32 100 KB' => \str_repeat('d', 100000),
        'fixarray of 10 ints' => \range(1, 10),
        'array 16 of 1,000 ints' => \range(1, 1000),
        'fixmap of 10 string keys' => \array_combine(\array_map(static fn (int $i): string => "key$i", \range(1, 10)), \range(1, 10)),
        'map 16 of 100 string keys → strings' => \array_combine(\array_map(static fn (int $i): string => "key$i", \range(1, 100)), \array_map(static fn (int $i): string => "value $i", \range(1, 100))),
    ];
}

function codecComparison(int $rounds): void
{
    $encoder = new Encoder();
    $decoder = new Decoder();
    $packer = new Packer(PackOptions::FORCE_STR);
    $unpacker = new BufferUnpacker();
    $timed = static function (Closure $work, int $times): float {
        $started = \hrtime(true);
        $work($times);

        return (\hrtime(true) - $started) / $times;
    };
    echo "\n| value | encode ours ns | encode rybakit ns | ours/theirs | decode ours ns | decode rybakit ns | ours/theirs |\n|---|---|---|---|---|---|---|\n";
    $worst = ['encode' => 0.0, 'decode' => 0.0];
    foreach (codecCases() as $label => $value) {
        $bytes = $encoder->encode($value);
        if ($packer->pack($value) !== $bytes) {
            $label .= ' (rybakit encodes other bytes)';
        }
        if ($unpacker->reset($bytes)->unpack() !== $decoder->decode($bytes)) {
            $label .= ' (rybakit decodes another value)';
        }
        // About 2 ms a sample whatever the size.
        $started = \hrtime(true);
        $decoder->decode($encoder->encode($value));
        $times = \max(20, (int) (2e6 / \max(1, \hrtime(true) - $started)));
        $work = [
            'oe' => static function (int $n) use ($encoder, $value): void {
                for ($i = 0; $i < $n; $i++) {
                    $encoder->encode($value);
                }
            },
            'te' => static function (int $n) use ($packer, $value): void {
                for ($i = 0; $i < $n; $i++) {
                    $packer->pack($value);
                }
            },
            'od' => static function (int $n) use ($decoder, $bytes): void {
                for ($i = 0; $i < $n; $i++) {
                    $decoder->decode($bytes);
                }
            },
            'td' => static function (int $n) use ($unpacker, $bytes): void {
                for ($i = 0; $i < $n; $i++) {
                    $unpacker->reset($bytes)->unpack();
                }
            },
        ];
        foreach ($work as $w) {
            $w($times); // warm-up, the JIT
        }
        $ns = \array_fill_keys(\array_keys($work), []);
        for ($round = 0; $round < $rounds; $round++) {
            foreach ($round % 2 === 0 ? ['oe', 'te', 'od', 'td'] : ['te', 'oe', 'td', 'od'] as $key) {
                $ns[$key][] = $timed($work[$key], $times);
            }
        }
        $encode = median(\array_map(static fn (float $o, float $t): float => $o / $t, $ns['oe'], $ns['te']));
        $decode = median(\array_map(static fn (float $o, float $t): float => $o / $t, $ns['od'], $ns['td']));
        $worst['encode'] = \max($worst['encode'], $encode);
        $worst['decode'] = \max($worst['decode'], $decode);
        \printf("| %s | %.0f | %.0f | %.2fx | %.0f | %.0f | %.2fx |\n", $label, median($ns['oe']), median($ns['te']), $encode, median($ns['od']), median($ns['td']), $decode);
    }
    \printf("\nworst ours/theirs: encode %.2fx, decode %.2fx\n", $worst['encode'], $worst['decode']);
}
