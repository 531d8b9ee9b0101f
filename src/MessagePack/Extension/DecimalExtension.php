<?php

declare(strict_types=1);

namespace Bobbin\MessagePack\Extension;

use Bobbin\MessagePack\Decoder;
use Bobbin\MessagePack\Encoder;
use Bobbin\MessagePack\Extension;
use Bobbin\MessagePack\MessagePackException;

/**
 * Tarantool's decimal (ext type 1): the scale as a MessagePack int, then the digits as packed
 * BCD, two per byte, the last nibble the sign (0xd or 0xb negative, 0xa/0xc/0xe/0xf positive).
 */
final class DecimalExtension implements Extension
{
    public const TYPE = 1;
    /** Tarantool's decimals have 38 digits, so their scale lies between -38 and 38 (1e37 is "1" at -37). */
    public const MAX_SCALE = 38;

    public function type(): int
    {
        return self::TYPE;
    }

    public function className(): string
    {
        return Decimal::class;
    }

    public function encode(object $value, Encoder $encoder): string
    {
        \assert($value instanceof Decimal);
        $text = $value->value;
        $negative = $text[0] === '-';
        $text = \ltrim($text, '-');
        $point = \strpos($text, '.');
        $scale = $point === false ? 0 : \strlen($text) - $point - 1;
        $digits = \ltrim(\str_replace('.', '', $text), '0');
        if ($digits === '') {
            $digits = '0';
            $negative = false;
        }
        $nibbles = $digits . ($negative ? 'd' : 'c');
        if (\strlen($nibbles) % 2 === 1) {
            $nibbles = '0' . $nibbles;
        }

        return Encoder::int($scale) . (string) \hex2bin($nibbles);
    }

    public function decode(string $data, Decoder $decoder): Decimal
    {
        $offset = 0;
        $scale = $decoder->decodeAt($data, $offset);
        if (!\is_int($scale) || $offset >= \strlen($data)) {
            throw new MessagePackException('A decimal needs an integer scale and at least one byte of digits');
        }
        if ($scale > self::MAX_SCALE || $scale < -self::MAX_SCALE) {
            // Checked before the zeros it asks for are padded: a hostile 2^31 would allocate 2 GiB.
            throw new MessagePackException(\sprintf('A decimal with the scale %d (Tarantool\'s lie within ±%d)', $scale, self::MAX_SCALE));
        }
        $nibbles = \bin2hex(\substr($data, $offset));
        $sign = $nibbles[-1];
        $digits = \substr($nibbles, 0, -1);
        if (!\ctype_digit($digits) || !\in_array($sign, ['a', 'b', 'c', 'd', 'e', 'f'], true)) {
            throw new MessagePackException(\sprintf('Malformed decimal digits 0x%s', $nibbles));
        }
        $digits = \ltrim($digits, '0');
        if ($scale < 0) {
            $digits = $digits === '' ? '0' : $digits . \str_repeat('0', -$scale);
        } elseif ($scale > 0) {
            $digits = \str_pad($digits, $scale + 1, '0', \STR_PAD_LEFT);
            $digits = \substr($digits, 0, -$scale) . '.' . \substr($digits, -$scale);
        } elseif ($digits === '') {
            $digits = '0';
        }
        $zero = \trim($digits, '0.') === '';

        return new Decimal(($sign === 'b' || $sign === 'd') && !$zero ? '-' . $digits : $digits);
    }
}
