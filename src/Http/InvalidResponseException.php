<?php

declare(strict_types=1);

namespace Bobbin\Http;

/**
 * A response the server refuses to put on the wire: a header name that is no RFC 9110 token, or
 * a value with a control character (CR and LF would inject header lines). The client gets a 500.
 *
 * @internal caught by the server, which answers 500
 */
final class InvalidResponseException extends \RuntimeException
{
}
