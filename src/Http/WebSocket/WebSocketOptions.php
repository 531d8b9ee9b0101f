<?php

declare(strict_types=1);

namespace Bobbin\Http\WebSocket;

/** Limits of one WebSocket. */
final class WebSocketOptions
{
    /**
     * @param int $maxMessageBytes the largest message (and frame) a client may send: 1009 above it
     * @param int $maxBufferedBytes unsent bytes a WebSocket holds before send() waits for the client to read (back-pressure)
     * @param float $closeTimeout seconds a close waits for the client's own close frame
     * @param bool $perMessageDeflate whether to accept a client's offer of permessage-deflate (RFC 7692, without context takeover)
     */
    public function __construct(
        public readonly int $maxMessageBytes = 1 << 20,
        public readonly int $maxBufferedBytes = 1 << 20,
        public readonly float $closeTimeout = 2.0,
        public readonly bool $perMessageDeflate = true,
    ) {
        if ($maxMessageBytes < 125 || $maxBufferedBytes < 1 || !($closeTimeout > 0.0)) {
            throw new \InvalidArgumentException('WebSocket limits: a message of at least 125 bytes, a buffer of at least 1 byte, a positive close timeout');
        }
    }
}
