<?php

declare(strict_types=1);

namespace Bobbin\Redis;

/** A RESP3 verbatim string: text with its format ("txt", "mkd"), as INFO or LATENCY DOCTOR send it in RESP3. */
final class VerbatimString implements \Stringable
{
    public function __construct(public readonly string $format, public readonly string $text)
    {
    }

    public function __toString(): string
    {
        return $this->text;
    }
}
