<?php

declare(strict_types=1);

namespace Bobbin\MessagePack\Extension;

use Bobbin\MessagePack\Decoder;
use Bobbin\MessagePack\Encoder;
use Bobbin\MessagePack\Extension;
use Bobbin\MessagePack\MessagePackException;

/**
 * Tarantool's error (ext type 3): a map holding the error stack, as in an error response.
 */
final class ErrorExtension implements Extension
{
    public const TYPE = 3;

    public function type(): int
    {
        return self::TYPE;
    }

    public function className(): string
    {
        return BoxError::class;
    }

    public function encode(object $value, Encoder $encoder): string
    {
        \assert($value instanceof BoxError);
        return $encoder->map($value->toMap());
    }

    public function decode(string $data, Decoder $decoder): BoxError
    {
        try {
            return BoxError::fromMap($decoder->decode($data));
        } catch (\UnexpectedValueException $e) {
            throw new MessagePackException('Malformed error extension: ' . $e->getMessage(), 0, $e);
        }
    }
}
