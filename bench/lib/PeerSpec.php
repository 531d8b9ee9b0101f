<?php

declare(strict_types=1);

namespace Bobbin\Bench;

/** A server started by someone else that implements the aircraft contract (--peer=NAME,URL,PID). */
final class PeerSpec
{
    public function __construct(
        public readonly string $name,
        public readonly string $url,
        public readonly int $pid,
    ) {
    }

    public static function parse(string $value): self
    {
        $parts = \explode(',', $value);
        if (\count($parts) !== 3 || !\preg_match('~^[A-Za-z0-9_.-]+$~', $parts[0])
            || !\str_starts_with($parts[1], 'http://') || !\ctype_digit($parts[2])) {
            throw new UsageException("--peer wants NAME,http://HOST:PORT,PID; got '$value'");
        }

        return new self($parts[0], \rtrim($parts[1], '/'), (int) $parts[2]);
    }
}
