<?php

declare(strict_types=1);

namespace Bobbin\Http;

/**
 * A connection as the process's end found it (Connection::handOverAtEnd()), handed to
 * AbruptEnd with its socket to answer and close.
 *
 * @internal
 */
final readonly class ConnectionAtEnd
{
    /** @param resource $socket */
    public function __construct(
        public mixed $socket,
        public ConnectionPhase $phase,
        /** The request it handles or handled last, if any. */
        public ?RequestHead $head,
        public string $requestId,
        /** Bytes of a request are read but not parsed yet (queued behind the handled one, or read in part). */
        public bool $requestBuffered,
        /** Its fiber terminated without finishing: the handled request's own code ended the process. */
        public bool $fiberEnded,
        /** When the handled request's handling began. */
        public float $handlingSince,
        /** No request has been read on it yet (accepted, its first bytes not seen). */
        public bool $fresh = false,
    ) {
    }
}
