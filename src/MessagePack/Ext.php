<?php

declare(strict_types=1);

namespace Bobbin\MessagePack;

/**
 * An extension value of a type no registered Extension handles: its type code and payload,
 * kept as they are (decoding never fails on an unknown type, and it encodes back byte for byte).
 */
final class Ext
{
    public function __construct(public readonly int $type, public readonly string $data)
    {
        if ($type < -128 || $type > 127) {
            throw new \ValueError('An extension type is between -128 and 127');
        }
    }
}
