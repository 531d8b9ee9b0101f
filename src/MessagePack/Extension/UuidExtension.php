<?php

declare(strict_types=1);

namespace Bobbin\MessagePack\Extension;

use Bobbin\MessagePack\Decoder;
use Bobbin\MessagePack\Encoder;
use Bobbin\MessagePack\Extension;
use Bobbin\MessagePack\MessagePackException;

/**
 * Tarantool's uuid (ext type 2): the 16 bytes in RFC 4122 (network) order.
 */
final class UuidExtension implements Extension
{
    public const TYPE = 2;

    public function type(): int
    {
        return self::TYPE;
    }

    public function className(): string
    {
        return Uuid::class;
    }

    public function encode(object $value, Encoder $encoder): string
    {
        \assert($value instanceof Uuid);
        return $value->bytes();
    }

    public function decode(string $data, Decoder $decoder): Uuid
    {
        if (\strlen($data) !== 16) {
            throw new MessagePackException(\sprintf('A uuid is 16 bytes, not %d', \strlen($data)));
        }

        return Uuid::fromBytes($data);
    }
}
