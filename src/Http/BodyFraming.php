<?php

declare(strict_types=1);

namespace Bobbin\Http;

/**
 * How the body of a response is delimited on the wire (RFC 9112 §6).
 *
 * @internal chosen by ResponseFramer
 */
enum BodyFraming
{
    /** No body at all: 1xx, 204, 304 and responses to HEAD. */
    case None;
    /** Exactly the declared Content-Length bytes follow the head. */
    case ContentLength;
    /** Transfer-Encoding: chunked (HTTP/1.1, size unknown in advance). */
    case Chunked;
    /** HTTP/1.0 and no known size: the body ends when the connection closes. */
    case UntilClose;
}
