<?php

declare(strict_types=1);

namespace Bobbin\Http;

/**
 * The parsed request line and header section of one request, with its framing decided.
 *
 * Immutable by contract (@immutable: PHPStan refuses writes after construction), not `readonly`:
 * PHP 8.2's tracing JIT leaves compiled code for the interpreter at every write to a readonly
 * property, and one is made per request (docs/ASYNC.md, Rules).
 *
 * @immutable
 */
final class RequestHead
{
    /**
     * @param array<string, list<string>> $headers field names as sent, repeated fields kept
     */
    public function __construct(
        public string $method,
        public string $target,
        public string $protocolVersion,
        public array $headers,
        public ?string $host,
        public int $contentLength,
        public bool $chunked,
        public bool $keepAlive,
        public bool $expectsContinue,
        public ?string $cookie,
        public ?string $contentType = null,
        /** The client's X-Request-Id, if it sent one. */
        public ?string $requestId = null,
    ) {
    }

    public function hasBody(): bool
    {
        return $this->chunked || $this->contentLength > 0;
    }
}
