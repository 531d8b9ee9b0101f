<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Ipc;

use Bobbin\Ipc\Codec\RingMemory;

/**
 * A ring's bytes in a string. Any access outside the ring is an error here, where the mapped
 * ring would read or write foreign memory: a codec test that passes never asked for one.
 */
final class StringRing implements RingMemory
{
    public string $bytes;

    public function __construct(int $capacity)
    {
        $this->bytes = \str_repeat("\xAA", $capacity); // not zeros: a stale byte must not pass for padding
    }

    /** Writes $bytes at $offset (test set-up: what the daemon would have written). */
    public function put(int $offset, string $bytes): self
    {
        $this->write($offset, $bytes);

        return $this;
    }

    public function read(int $offset, int $length): string
    {
        $this->check($offset, $length);

        return \substr($this->bytes, $offset, $length);
    }

    public function write(int $offset, string $bytes): void
    {
        $this->check($offset, \strlen($bytes));
        $this->bytes = \substr_replace($this->bytes, $bytes, $offset, \strlen($bytes));
    }

    private function check(int $offset, int $length): void
    {
        if ($offset < 0 || $length < 0 || $offset + $length > \strlen($this->bytes)) {
            throw new \OutOfBoundsException(\sprintf('Access of %d bytes at %d in a ring of %d', $length, $offset, \strlen($this->bytes)));
        }
    }
}
