<?php

declare(strict_types=1);

namespace Bobbin\Http\Compression;

use Bobbin\Http\Message\StringStream;
use Bobbin\Http\ResponseFramer;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\StreamInterface;

/**
 * --compression: gzips a response for a client whose Accept-Encoding takes it, as a transform
 * of the response the writer applies before framing (it never writes). Left as they are:
 * HEAD, 1xx, 204, 206 and 304 responses, responses with a Content-Encoding or a Content-Range
 * of their own or `Cache-Control: no-transform`, types not worth it (CompressibleType), and
 * bodies of a known size below the threshold. A response that could be compressed gets `Vary:
 * Accept-Encoding` whether or not this client takes gzip, so that a cache keeps the variants
 * apart; a compressed one has its ETag made weak (the bytes differ from the identity ones).
 *
 * A string body that fits the head's write is compressed whole (its Content-Length is the
 * compressed length); any other goes through a GzipStream and out chunked.
 *
 * @internal one per server (ServerContext), applied by ResponseWriter
 */
final class ResponseCompression
{
    public function __construct(private readonly int $level = 1, private readonly int $minBytes = 1024)
    {
    }

    /**
     * @param array<string, list<string>> $requestHeaders names as sent
     */
    public function apply(ResponseInterface $response, string $method, array $requestHeaders): ResponseInterface
    {
        $status = $response->getStatusCode();
        if ($method === 'HEAD' || $status < 200 || $status === 204 || $status === 206 || $status === 304
            || $response->hasHeader('content-encoding') || $response->hasHeader('content-range')
            || !CompressibleType::is($response->getHeaderLine('content-type'))
            || \stripos($response->getHeaderLine('cache-control'), 'no-transform') !== false) {
            return $response;
        }
        $body = $response->getBody();
        $size = $body->getSize();
        if ($size !== null && $size < $this->minBytes) {
            return $response;
        }
        $vary = $response->getHeaderLine('vary');
        if (\stripos($vary, 'accept-encoding') === false && \trim($vary) !== '*') {
            $response = $response->withAddedHeader('Vary', 'Accept-Encoding');
        }
        if (AcceptEncoding::choose(self::field($requestHeaders, 'accept-encoding'), ['gzip']) === null) {
            return $response;
        }
        $etag = $response->getHeaderLine('etag');
        if (\str_starts_with($etag, '"')) {
            $response = $response->withHeader('ETag', 'W/' . $etag);
        }
        // Ranges of the identity bytes do not apply to these (nginx drops Accept-Ranges too).
        $response = $response->withHeader('Content-Encoding', 'gzip')->withoutHeader('Content-Length')->withoutHeader('Accept-Ranges');
        if ($size !== null && $size <= ResponseFramer::INLINE_BODY_BYTES) {
            $whole = self::whole($body, $size);
            if ($whole !== null) {
                return $response->withBody(new StringStream((string) \gzencode($whole, $this->level)));
            }
        }

        return $response->withBody(new GzipStream($body, $this->level, $size === null));
    }

    /** A small body read whole (compressed in one go, sent with a Content-Length); null when it cannot be. */
    private static function whole(StreamInterface $body, int $size): ?string
    {
        if ($body instanceof StringStream) {
            return $body->contents();
        }
        if (!$body->isSeekable()) {
            return null;
        }
        try {
            $body->rewind();
            $contents = $body->read($size + 1);
        } catch (\Throwable) {
            return null; // streamed then, where a failure is reported
        }
        if (\strlen($contents) !== $size) {
            return null;
        }
        $body->rewind();

        return $contents;
    }

    /** @param array<string, list<string>> $headers */
    private static function field(array $headers, string $lowerName): ?string
    {
        foreach ($headers as $name => $values) {
            if (\strtolower((string) $name) === $lowerName) {
                return \implode(', ', $values);
            }
        }

        return null;
    }
}
