<?php

declare(strict_types=1);

namespace Bobbin\Redis\Internal;

/**
 * An error reply (RESP `-` or `!`) as the parser found it: a value, not yet an exception, so
 * that one inside an EXEC's answer stays in its place among the others.
 *
 * @internal
 */
final class ErrorReply
{
    public function __construct(public readonly string $message)
    {
    }

    /** The error's first word: ERR, WRONGTYPE, NOSCRIPT… */
    public function prefix(): string
    {
        $space = \strpos($this->message, ' ');

        return $space === false ? $this->message : \substr($this->message, 0, $space);
    }
}
