<?php

declare(strict_types=1);

namespace Bobbin\Http;

/**
 * What a connection is doing, which decides what its deadline means when it passes.
 *
 * @internal the state of a Connection
 */
enum ConnectionPhase
{
    /** Between requests, nothing of the next one received: closed quietly when idle too long. */
    case Idle;
    /** Part of a request head received: 408 when the header timeout passes (slowloris). */
    case ReadingHead;
    /** Receiving a request body: 408 when the body timeout passes. */
    case ReadingBody;
    /** The application has the request: 503 when the request timeout passes. */
    case Handling;
    /**
     * A streamed response body's source is producing its next piece (the application's
     * stream, a generator, a framework's streamed callback): the piece is due within the
     * request timeout, and the client is not judged on its reading rate meanwhile.
     */
    case Streaming;
    /** A response is stuck on a client that does not read: dropped at the write timeout. */
    case Writing;
    /** Waiting for the client to close after our last response: dropped shortly. */
    case Closing;
}
