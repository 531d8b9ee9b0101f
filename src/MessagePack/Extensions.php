<?php

declare(strict_types=1);

namespace Bobbin\MessagePack;

use Bobbin\MessagePack\Extension\DatetimeExtension;
use Bobbin\MessagePack\Extension\DecimalExtension;
use Bobbin\MessagePack\Extension\ErrorExtension;
use Bobbin\MessagePack\Extension\UuidExtension;

/**
 * The extension types an Encoder and a Decoder know, by type code and by PHP class. Immutable:
 * with() returns a copy, so a codec's set never changes under it.
 */
final class Extensions
{
    /** @var array<int, Extension> */
    private array $byType = [];
    /** @var array<class-string, Extension> */
    private array $byClass = [];

    /** @param Extension ...$extensions */
    public function __construct(Extension ...$extensions)
    {
        foreach ($extensions as $extension) {
            $this->add($extension);
        }
    }

    /** Tarantool's types: decimal (1), uuid (2), error (3), datetime (4). */
    public static function tarantool(): self
    {
        static $tarantool = null;

        return $tarantool ??= new self(new DecimalExtension(), new UuidExtension(), new ErrorExtension(), new DatetimeExtension());
    }

    /**
     * A copy that also knows $extension (replacing one of the same type code).
     *
     * @param Extension $extension
     */
    public function with(Extension $extension): self
    {
        $copy = clone $this;
        $copy->add($extension);

        return $copy;
    }

    /** @return Extension|null */
    public function forType(int $type): ?Extension
    {
        return $this->byType[$type] ?? null;
    }

    /** @return Extension|null */
    public function forObject(object $value): ?Extension
    {
        $extension = $this->byClass[$value::class] ?? null;
        if ($extension !== null) {
            return $extension;
        }
        foreach ($this->byClass as $class => $candidate) {
            if ($value instanceof $class) {
                return $candidate;
            }
        }

        return null;
    }

    /** @param Extension $extension */
    private function add(Extension $extension): void
    {
        $type = $extension->type();
        if ($type < -128 || $type > 127) {
            throw new \ValueError('An extension type is between -128 and 127');
        }
        $previous = $this->byType[$type] ?? null;
        if ($previous !== null) {
            unset($this->byClass[$previous->className()]);
        }
        $this->byType[$type] = $extension;
        $this->byClass[$extension->className()] = $extension;
    }
}
