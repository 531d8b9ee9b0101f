<?php

declare(strict_types=1);

namespace Bobbin\Http;

/**
 * The parsed request line and header section of one request, with its framing decided.
 *
 * Immutable by contract (@immutable: PHPStan refuses writes after construction), and its
 * properties untyped (typed by @var): one is made per request, and PHP 8.2's tracing JIT hands
 * every write to a readonly property to the interpreter and calls a checking helper for every
 * write to a typed one (docs/ASYNC.md, Rules). The constructor's parameters carry the types.
 *
 * @immutable
 *
 * @internal parsed by RequestParser for Connection
 */
final class RequestHead
{
    /** @var string */
    public $method;
    /** @var string */
    public $target;
    /** @var string */
    public $protocolVersion;
    /** @var array<string, list<string>> field names as sent, repeated fields kept */
    public $headers;
    /** @var ?string */
    public $host;
    /** @var int */
    public $contentLength;
    /** @var bool */
    public $chunked;
    /** @var bool */
    public $keepAlive;
    /** @var bool */
    public $expectsContinue;
    /** @var ?string */
    public $cookie;
    /** @var ?string */
    public $contentType;
    /** @var ?string the client's X-Request-Id, if it sent one */
    public $requestId;

    /**
     * @param array<string, list<string>> $headers field names as sent, repeated fields kept
     */
    public function __construct(
        string $method,
        string $target,
        string $protocolVersion,
        array $headers,
        ?string $host,
        int $contentLength,
        bool $chunked,
        bool $keepAlive,
        bool $expectsContinue,
        ?string $cookie,
        ?string $contentType = null,
        ?string $requestId = null,
    ) {
        $this->method = $method;
        $this->target = $target;
        $this->protocolVersion = $protocolVersion;
        $this->headers = $headers;
        $this->host = $host;
        $this->contentLength = $contentLength;
        $this->chunked = $chunked;
        $this->keepAlive = $keepAlive;
        $this->expectsContinue = $expectsContinue;
        $this->cookie = $cookie;
        $this->contentType = $contentType;
        $this->requestId = $requestId;
    }

    public function hasBody(): bool
    {
        return $this->chunked || $this->contentLength > 0;
    }
}
