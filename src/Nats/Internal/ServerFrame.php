<?php

declare(strict_types=1);

namespace Bobbin\Nats\Internal;

/** @internal one control frame from the server (a message is a Bobbin\Nats\Message instead) */
final readonly class ServerFrame
{
    /** @param array<string, mixed> $info INFO's fields */
    public function __construct(
        public FrameKind $kind,
        public array $info = [],
        public string $error = '',
    ) {
    }
}
