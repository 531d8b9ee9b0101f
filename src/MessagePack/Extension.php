<?php

declare(strict_types=1);

namespace Bobbin\MessagePack;

/**
 * One MessagePack extension type: how objects of one PHP class become its payload and back.
 * Registered with Extensions; the codec writes the ext header itself.
 */
interface Extension
{
    /** The extension type code, -128…127. */
    public function type(): int;

    /** @return class-string the class whose objects this extension encodes (subclasses too) */
    public function className(): string;

    /** $value is an instance of className() */
    public function encode(object $value, Encoder $encoder): string;

    /**
     * @throws MessagePackException when $data is not a valid payload of this type
     */
    public function decode(string $data, Decoder $decoder): mixed;
}
