<?php

declare(strict_types=1);

namespace Bobbin\Async;

/**
 * For a class that owns a socket, a handle, a process or a pool: it refuses clone and serialize.
 * A clone would share what it owns with the original (two objects writing one socket, one closing
 * it under the other, a transaction's copy running statements after it ended); a serialized copy
 * would come back as a shell with nothing open, or, unserialized from crafted bytes, as an object
 * no constructor checked.
 *
 * Clone is refused by a private __clone(): the engine then throws an \Error ("Call to private
 * X::__clone() from scope Y") before it copies anything, and ReflectionClass::isCloneable() says
 * false, which deep-copy tools respect. A public __clone() that throws would run on the copy the
 * engine has already made, and that copy's destructor would then close the socket it shares with
 * the original. The class itself may still clone (Tarantool's transaction stream view does, on
 * purpose). Serialize and unserialize throw a LogicException naming the class (with
 * __serialize() defined PHP never calls __sleep(), with __unserialize() never __wakeup(), and a
 * failed unserialize never runs the half-built object's destructor).
 */
trait OwnsResources
{
    private function __clone(): void
    {
    }

    /** @return never */
    public function __serialize(): array
    {
        throw $this->copyRefused('serialized');
    }

    /** @param array<mixed> $data */
    public function __unserialize(array $data): void
    {
        throw $this->copyRefused('unserialized');
    }

    private function copyRefused(string $how): \LogicException
    {
        return new \LogicException(\sprintf(
            '%s cannot be %s: it owns a live resource (a socket, a handle, a process or a pool) that a copy would share or lose',
            $this::class,
            $how,
        ));
    }
}
