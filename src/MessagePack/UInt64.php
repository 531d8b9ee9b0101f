<?php

declare(strict_types=1);

namespace Bobbin\MessagePack;

/**
 * An unsigned 64-bit integer above PHP_INT_MAX, as decimal digits: what the decoder returns
 * for such a value is the plain string, and this wrapper sends one back as a uint 64.
 */
final class UInt64
{
    public readonly string $digits;

    public function __construct(string $digits)
    {
        if (\preg_match('/^(0|[1-9][0-9]{0,19})$/', $digits) !== 1 || (\strlen($digits) === 20 && \strcmp($digits, '18446744073709551615') > 0)) {
            throw new \ValueError(\sprintf('"%s" is not an unsigned 64-bit integer', $digits));
        }
        $this->digits = $digits;
    }

    /** The 8 bytes, big-endian. */
    public function bytes(): string
    {
        // Two halves, each well inside PHP's int: high = digits div 2^32, low = digits mod 2^32.
        $high = 0;
        $low = 0;
        foreach (\str_split($this->digits) as $digit) {
            $low = $low * 10 + (int) $digit;
            $high = $high * 10 + ($low >> 32);
            $low &= 0xFFFFFFFF;
        }

        return \pack('NN', $high, $low);
    }
}
