<?php

declare(strict_types=1);

namespace Bobbin\MessagePack\Extension;

/** A UUID (Tarantool's uuid type) in its canonical lower-case form. */
final class Uuid implements \Stringable
{
    public readonly string $value;

    public function __construct(string $value)
    {
        $value = \strtolower($value);
        if (\preg_match('/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/', $value) !== 1) {
            throw new \ValueError(\sprintf('"%s" is not a UUID', $value));
        }
        $this->value = $value;
    }

    public static function fromBytes(string $bytes): self
    {
        if (\strlen($bytes) !== 16) {
            throw new \ValueError('A UUID is 16 bytes');
        }
        $hex = \bin2hex($bytes);

        return new self(\sprintf('%s-%s-%s-%s-%s', \substr($hex, 0, 8), \substr($hex, 8, 4), \substr($hex, 12, 4), \substr($hex, 16, 4), \substr($hex, 20)));
    }

    public function bytes(): string
    {
        return (string) \hex2bin(\str_replace('-', '', $this->value));
    }

    public function __toString(): string
    {
        return $this->value;
    }
}
