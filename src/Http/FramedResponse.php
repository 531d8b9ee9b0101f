<?php

declare(strict_types=1);

namespace Bobbin\Http;

use Psr\Http\Message\StreamInterface;

/**
 * A response turned into wire form by ResponseFramer: the complete head, and how its body
 * follows. When the whole body is at hand as a string ($inlineBody), the head and the body go
 * out in one write ($bytes).
 *
 * Immutable by contract (@immutable), not `readonly`: one is made per response, and PHP 8.2's
 * tracing JIT leaves compiled code for the interpreter at every write to a readonly property
 * (docs/ASYNC.md, Rules).
 *
 * @immutable
 */
final class FramedResponse
{
    /**
     * The response's complete bytes when no body has to be streamed (none, an empty one, or
     * one held inline): one write puts it all on the wire. Null when the body must be streamed.
     */
    public ?string $bytes;

    public function __construct(
        /** Status line, header lines and the empty line that ends the head. */
        public string $head,
        public BodyFraming $framing,
        /** Whether the connection may serve another request after this response. */
        public bool $keepAlive,
        /** The body when framing is not None (null otherwise). */
        public ?StreamInterface $body = null,
        /** The body's length for ContentLength framing. */
        public int $length = 0,
        /** The body itself, when it is a string already and small enough to join the head. */
        public ?string $inlineBody = null,
    ) {
        $this->bytes = match (true) {
            $inlineBody !== null => $head . $inlineBody,
            $framing === BodyFraming::None, $framing === BodyFraming::ContentLength && $length === 0 => $head,
            default => null,
        };
    }
}
