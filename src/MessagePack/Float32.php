<?php

declare(strict_types=1);

namespace Bobbin\MessagePack;

/** A float to be sent as float 32 instead of the default float 64 (precision is lost). */
final class Float32
{
    public function __construct(public readonly float $value)
    {
    }
}
