<?php

declare(strict_types=1);

namespace Bobbin\Http\WebSocket;

/**
 * One frame as it was on the wire, its payload unmasked.
 *
 * @internal
 */
final class Frame
{
    public function __construct(
        public readonly Opcode $opcode,
        public readonly string $payload,
        public readonly bool $final = true,
        /** RSV1 under permessage-deflate: the message this frame begins is compressed. */
        public readonly bool $compressed = false,
    ) {
    }
}
