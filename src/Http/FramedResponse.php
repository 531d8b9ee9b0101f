<?php

declare(strict_types=1);

namespace Bobbin\Http;

use Psr\Http\Message\StreamInterface;

/**
 * A response turned into wire form by ResponseFramer: the complete head, and how its body
 * follows. When the whole body is at hand as a string ($inlineBody), the head and the body go
 * out in one write ($bytes).
 *
 * Immutable by contract (@immutable), with untyped properties (typed by @var): one is made per
 * response, and PHP 8.2's tracing JIT hands every write to a readonly property to the
 * interpreter and calls a checking helper for every write to a typed one (docs/ASYNC.md, Rules).
 *
 * @immutable
 *
 * @internal made by ResponseFramer for ResponseWriter
 */
final class FramedResponse
{
    /** @var string status line, header lines and the empty line that ends the head */
    public $head;
    /** @var BodyFraming */
    public $framing;
    /** @var bool whether the connection may serve another request after this response */
    public $keepAlive;
    /** @var ?StreamInterface the body when framing is not None (null otherwise, and when $inlineBody holds it) */
    public $body;
    /** @var int the body's length for ContentLength framing */
    public $length;
    /** @var ?string the body itself, when it is a string already and small enough to join the head */
    public $inlineBody;
    /**
     * The response's complete bytes when no body has to be streamed (none, an empty one, or
     * one held inline): one write puts it all on the wire. Null when the body must be streamed.
     *
     * @var ?string
     */
    public $bytes;

    /**
     * The enum and the body's interface are the analyser's types (@param), not run-time checks:
     * one is made per response (docs/ASYNC.md, Rules).
     *
     * @param BodyFraming $framing
     * @param ?StreamInterface $body
     */
    public function __construct(
        string $head,
        $framing,
        bool $keepAlive,
        $body = null,
        int $length = 0,
        ?string $inlineBody = null,
    ) {
        $this->head = $head;
        $this->framing = $framing;
        $this->keepAlive = $keepAlive;
        $this->body = $body;
        $this->length = $length;
        $this->inlineBody = $inlineBody;
        $this->bytes = match (true) {
            $inlineBody !== null => $head . $inlineBody,
            $framing === BodyFraming::None, $framing === BodyFraming::ContentLength && $length === 0 => $head,
            default => null,
        };
    }
}
