<?php

declare(strict_types=1);

namespace Bobbin\MessagePack\Extension;

/**
 * An exact decimal number (Tarantool's decimal type), kept as its digits: "-12.340" stays
 * that, never a float. Up to 38 significant digits on the server.
 */
final class Decimal implements \Stringable
{
    public readonly string $value;

    public function __construct(string $value)
    {
        if (\preg_match('/^-?(0|[1-9][0-9]*|0?\.[0-9]+|[1-9][0-9]*\.[0-9]+)$/', $value) !== 1) {
            throw new \ValueError(\sprintf('"%s" is not a decimal number (digits, an optional sign and point)', $value));
        }
        $this->value = $value;
    }

    public function __toString(): string
    {
        return $this->value;
    }
}
