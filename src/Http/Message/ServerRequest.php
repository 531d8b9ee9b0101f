<?php

declare(strict_types=1);

namespace Bobbin\Http\Message;

use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Message\UploadedFileInterface;
use Psr\Http\Message\UriInterface;

/**
 * An immutable PSR-7 server request that does work only when asked for it.
 *
 * The server builds it from what its parser already validated (fromParsed()): nothing is parsed
 * or copied up front. The URI object is built on the first getUri(), query parameters on the
 * first getQueryParams(), cookies on the first getCookieParams(), the body stream on the first
 * getBody(), the case-insensitive header map on the first header lookup. A clone made by a
 * with*() method before that point shares the raw parts and builds its own on demand.
 *
 * Applications (and MessageFactory) use create(), which validates like any PSR-7 constructor.
 *
 * Over 400 lines: PSR-7's ServerRequestInterface and MessageInterface methods, and the lazy
 * parsing of the query, cookies and body that keeps a request cheap when the application never
 * asks.
 */
final class ServerRequest implements ServerRequestInterface
{
    use MessageMethods;

    // The properties fromParsed() writes for every request are untyped, typed by @var: PHP 8.2's
    // tracing JIT calls a checking helper for each write to a typed property (docs/ASYNC.md, Rules).
    /** @var string */
    private $method = 'GET';
    /** @var ?string as received or as set; null: derived from the URI (origin-form of path and query) */
    private $requestTarget = null;
    /** Whether the application chose the target with withRequestTarget(), so withUri() keeps it. */
    private bool $targetChosen = false;
    private ?UriInterface $uri = null;
    /** @var string the authority ("host[:port]") the first getUri() builds the URI from */
    private $uriAuthority = '';
    /** @var string the origin-form target the first getUri() builds the URI from */
    private $uriTarget = '';
    /** @var array<array-key, mixed>|null */
    private ?array $queryParams = null;
    /** @var string the target whose query string getQueryParams() parses */
    private $querySource = '';
    /** @var array<array-key, mixed>|null */
    private ?array $cookieParams = null;
    /** @var ?string the Cookie header(s) as received, joined with "; " */
    private $cookieSource = null;
    /** @var array<array-key, mixed> */
    private $serverParams = [];
    /** @var array<array-key, mixed> */
    private $uploadedFiles = [];
    /** @var array<array-key, mixed>|object|null */
    private $parsedBody = null;
    /** @var array<string, mixed> */
    private $attributes = [];
    /**
     * fromParsed() with $attributesOnDemand: the server's own attributes, added in front of
     * $attributes when they are first read or changed (attributesNow()); null once added.
     *
     * @var ?AttributesOnDemand
     */
    private $attributesOnDemand = null;
    /** @var int the request's number for $attributesOnDemand */
    private $onDemandRequest = 0;
    /** @var string the request's id for $attributesOnDemand */
    private $onDemandId = '';
    /**
     * fromParsed(): the header fields as received, until the first getServerParams() completes
     * the server parameters from them (ServerParams::complete()); null once done or for create().
     *
     * @var array<string, list<string>>|null
     */
    private $serverParamHeaders = null;
    /**
     * fromParsed() with $requestTime: when the request's bytes were found ready, and the request
     * line as received ($lineMethod, $lineTarget, $lineVersion), from which the first
     * getServerParams() adds REQUEST_METHOD, REQUEST_URI, SERVER_PROTOCOL and REQUEST_TIME(_FLOAT):
     * a request whose application never asks makes no copy of the parameters.
     *
     * @var ?float
     */
    private $requestTime = null;
    /** @var string */
    private $lineMethod = '';
    /** @var string */
    private $lineTarget = '';
    /** @var string */
    private $lineVersion = '';
    /** @var string */
    private $uriScheme = 'http';
    /** @var ?string fromParsed(): the Content-Type of a POST whose form body getParsedBody() decodes when first asked */
    private $formContentType = null;

    /**
     * The authority last found valid. A keep-alive client, and usually every client, sends the
     * same Host request after request; checking it once per process instead of once per request
     * is what "validate nothing twice" means here.
     */
    private static string $validAuthority = '';

    private function __construct()
    {
    }

    /**
     * The server's constructor, from parts its parser has validated already: method and header
     * names are tokens, values carry no control characters, the target is non-empty visible
     * ASCII in origin, absolute or asterisk form, the Host value has the shape of an authority.
     * The target is kept exactly as sent: the URI object normalises percent-encoding, and
     * applications that sign or proxy requests need the original.
     *
     * The URI is built lazily, but the authority is checked here (the parser checked its shape,
     * not its port) and an absolute-form target is parsed here, so that a URI no parser accepts
     * throws now (the server answers 400) rather than in the middle of the application.
     *
     * @param array<string, list<string>> $headers names as sent, repeated fields as lists
     * @param ?string $host the Host header, null when the request had none
     * @param string $defaultAuthority the server's own address, for a missing or empty Host
     * @param array<string, mixed> $serverParams
     * @param ?string $cookie the Cookie header(s), joined with "; "
     * @param array<string, mixed> $attributes
     * @param string $scheme "https" when a trusted proxy says the client used TLS
     * @param array<array-key, mixed>|null $parsedBody a decoded multipart form (null: decoded on demand)
     * @param array<array-key, mixed> $uploadedFiles the form's files, as PSR-7 nests them
     * @param ?float $requestTime when the request's bytes were found ready: the first
     *        getServerParams() then adds the request line's keys and REQUEST_TIME(_FLOAT) to
     *        $serverParams (null: $serverParams has them, or is to have none)
     * @param ?AttributesOnDemand $attributesOnDemand the server's attributes of request number
     *        $requestNumber, id $requestId, put before $attributes when first read or changed
     * @throws \InvalidArgumentException when target and authority make no valid URI
     */
    public static function fromParsed(
        string $method,
        string $target,
        string $protocolVersion,
        array $headers,
        ?string $host,
        string $defaultAuthority,
        string $body = '',
        array $serverParams = [],
        ?string $cookie = null,
        array $attributes = [],
        string $scheme = 'http',
        ?string $contentType = null,
        ?array $parsedBody = null,
        array $uploadedFiles = [],
        ?float $requestTime = null,
        ?AttributesOnDemand $attributesOnDemand = null,
        int $requestNumber = 0,
        string $requestId = '',
    ): self {
        $request = new ServerRequest();
        if ($attributesOnDemand !== null) {
            $request->attributesOnDemand = $attributesOnDemand;
            $request->onDemandRequest = $requestNumber;
            $request->onDemandId = $requestId;
        }
        if ($requestTime !== null) {
            $request->requestTime = $requestTime;
            $request->lineMethod = $method;
            $request->lineTarget = $target;
            $request->lineVersion = $protocolVersion;
        }
        $request->attributes = $attributes;
        $request->serverParamHeaders = $headers;
        $request->uriScheme = $scheme;
        if ($parsedBody !== null) {
            $request->parsedBody = $parsedBody;
            $request->uploadedFiles = $uploadedFiles;
        } elseif ($method === 'POST' && $contentType !== null) {
            // As PHP fills $_POST: for POST, and only for the two form types.
            $request->formContentType = $contentType;
        }
        $request->method = $method;
        $request->requestTarget = $target;
        $request->querySource = $target;
        $request->protocolVersion = $protocolVersion;
        $request->headers = $headers;
        $request->content = $body;
        $request->serverParams = $serverParams;
        $request->cookieSource = $cookie;

        if ($target[0] === '/' || $target === '*') {
            $authority = $host === null || $host === '' ? $defaultAuthority : $host;
            if ($authority !== ServerRequest::$validAuthority) {
                Uri::assertRequestAuthority($authority);
                ServerRequest::$validAuthority = $authority;
            }
            $request->uriAuthority = $authority;
            $request->uriTarget = $target === '*' ? '' : $target;
        } else {
            // Absolute form, sent to proxies: rare; the URI is the target, judged now.
            $request->uri = new Uri($target);
        }
        if ($host === null) {
            // HTTP/1.0 without Host: give the application one, from the URI, as PSR-7 expects.
            $request->setHostFromUri($request->getUri());
        }

        return $request;
    }

    /**
     * A request built by the application or a PSR-17 factory; the Host header comes from the URI.
     *
     * @param array<string, mixed> $serverParams
     * @throws \InvalidArgumentException for an invalid method or URI
     */
    public static function create(string $method, UriInterface|string $uri, array $serverParams = []): self
    {
        $request = new self();
        $request->method = self::validMethod($method);
        $request->uri = \is_string($uri) ? new Uri($uri) : $uri;
        $request->serverParams = $serverParams;
        $request->queryParams = $request->cookieParams = [];
        $request->headerNames = [];
        $request->setHostFromUri($request->uri);

        return $request;
    }

    public function getRequestTarget(): string
    {
        if ($this->requestTarget !== null) {
            return $this->requestTarget;
        }
        $uri = $this->getUri();
        $target = $uri->getPath();
        if ($target === '') {
            $target = '/';
        }
        $query = $uri->getQuery();

        return $query === '' ? $target : $target . '?' . $query;
    }

    /** @throws \InvalidArgumentException for an empty target or one with whitespace or control characters */
    public function withRequestTarget(string $requestTarget): static
    {
        if ($requestTarget === '' || \strpbrk($requestTarget, " \t\r\n\0\x0b\x0c\x7f") !== false) {
            throw new \InvalidArgumentException('A request target must be non-empty and contain no whitespace');
        }
        $new = clone $this;
        $new->requestTarget = $requestTarget;
        $new->targetChosen = true;

        return $new;
    }

    public function getMethod(): string
    {
        return $this->method;
    }

    /** @throws \InvalidArgumentException for a method that is not an RFC 9110 token */
    public function withMethod(string $method): static
    {
        $new = clone $this;
        $new->method = self::validMethod($method);

        return $new;
    }

    /** Built on the first call from what fromParsed() checked already, so it cannot fail. */
    public function getUri(): UriInterface
    {
        return $this->uri ??= Uri::fromRequest($this->uriAuthority, $this->uriTarget, $this->uriScheme);
    }

    /**
     * A target received from the client follows the new URI from now on (the application moved
     * the request); a target the application set with withRequestTarget() stays.
     */
    public function withUri(UriInterface $uri, bool $preserveHost = false): static
    {
        $new = clone $this;
        $new->uri = $uri;
        if (!$this->targetChosen) {
            $new->requestTarget = null;
        }
        if (!$preserveHost || $this->getHeaderLine('Host') === '') {
            $new->setHostFromUri($uri);
        }

        return $new;
    }

    /** @return array<array-key, mixed> */
    public function getServerParams(): array
    {
        if ($this->serverParamHeaders !== null) {
            $params = $this->serverParams;
            if ($this->requestTime !== null) {
                $params['REQUEST_METHOD'] = $this->lineMethod;
                $params['REQUEST_URI'] = $this->lineTarget;
                $params['SERVER_PROTOCOL'] = 'HTTP/' . $this->lineVersion;
                $params['REQUEST_TIME'] = (int) $this->requestTime;
                $params['REQUEST_TIME_FLOAT'] = $this->requestTime;
            }
            $this->serverParams = ServerParams::complete(
                $params,
                $this->serverParamHeaders,
                (string) ($params['REQUEST_URI'] ?? $this->getRequestTarget()),
                $this->uriScheme,
                \strlen($this->content),
            );
            $this->serverParamHeaders = null;
        }

        return $this->serverParams;
    }

    /** @return array<array-key, mixed> */
    public function getCookieParams(): array
    {
        return $this->cookieParams ??= $this->cookieSource === null ? [] : ServerRequest::parseCookies($this->cookieSource);
    }

    /** @param array<array-key, mixed> $cookies */
    public function withCookieParams(array $cookies): static
    {
        $new = clone $this;
        $new->cookieParams = $cookies;

        return $new;
    }

    /** @return array<array-key, mixed> */
    public function getQueryParams(): array
    {
        return $this->queryParams ??= ServerRequest::parseQuery($this->querySource);
    }

    /** @param array<array-key, mixed> $query */
    public function withQueryParams(array $query): static
    {
        $new = clone $this;
        $new->queryParams = $query;

        return $new;
    }

    /** @return array<array-key, mixed> */
    public function getUploadedFiles(): array
    {
        return $this->uploadedFiles;
    }

    /**
     * @param array<array-key, mixed> $uploadedFiles a tree whose leaves are UploadedFileInterface
     * @throws \InvalidArgumentException for any other leaf
     */
    public function withUploadedFiles(array $uploadedFiles): static
    {
        self::assertUploadedFiles($uploadedFiles);
        $new = clone $this;
        $new->uploadedFiles = $uploadedFiles;

        return $new;
    }

    /** @return array<array-key, mixed>|object|null */
    public function getParsedBody()
    {
        if ($this->formContentType !== null) {
            $type = \strtolower(\trim(\explode(';', $this->formContentType, 2)[0]));
            $this->formContentType = null;
            if ($type === 'application/x-www-form-urlencoded') {
                $fields = [];
                @\parse_str($this->body === null ? $this->content : (string) $this->body, $fields);
                $this->parsedBody = $fields;
            }
        }

        return $this->parsedBody;
    }

    /**
     * @param array<array-key, mixed>|object|null $data
     * @throws \InvalidArgumentException for anything but an array, an object or null
     */
    public function withParsedBody($data): static
    {
        if ($data !== null && !\is_array($data) && !\is_object($data)) {
            throw new \InvalidArgumentException('A parsed body must be an array, an object or null, ' . \get_debug_type($data) . ' given');
        }
        $new = clone $this;
        $new->parsedBody = $data;
        $new->formContentType = null;

        return $new;
    }

    /** @return array<string, mixed> */
    public function getAttributes(): array
    {
        $this->attributesOnDemand === null || $this->attributesNow();

        return $this->attributes;
    }

    public function getAttribute(string $name, $default = null)
    {
        $this->attributesOnDemand === null || $this->attributesNow();

        return \array_key_exists($name, $this->attributes) ? $this->attributes[$name] : $default;
    }

    public function withAttribute(string $name, $value): static
    {
        $this->attributesOnDemand === null || $this->attributesNow();
        $new = clone $this;
        $new->attributes[$name] = $value;

        return $new;
    }

    public function withoutAttribute(string $name): static
    {
        $this->attributesOnDemand === null || $this->attributesNow();
        if (!\array_key_exists($name, $this->attributes)) {
            return $this;
        }
        $new = clone $this;
        unset($new->attributes[$name]);

        return $new;
    }

    /** The server's attributes, first in the array as if given to fromParsed(); once. */
    private function attributesNow(): void
    {
        $source = $this->attributesOnDemand;
        \assert($source instanceof AttributesOnDemand);
        $this->attributes = $source->attributesOf($this->onDemandRequest, $this->onDemandId) + $this->attributes;
        $this->attributesOnDemand = null;
    }

    /** Sets Host from the URI's host and port, as the first header; a URI without host changes nothing. */
    private function setHostFromUri(UriInterface $uri): void
    {
        $host = $uri->getHost();
        if ($host === '') {
            return;
        }
        $port = $uri->getPort();
        if ($port !== null) {
            $host .= ':' . $port;
        }
        $name = $this->headerNames()['host'] ?? 'Host';
        unset($this->headers[$name]);
        // RFC 9112 §3.2: a client sends Host first; keep it first here too.
        $this->headers = [$name => [$host]] + $this->headers;
        $this->headerNames['host'] = $name;
    }

    /** @throws \InvalidArgumentException */
    private static function validMethod(string $method): string
    {
        if (!HeaderRules::isToken($method)) {
            throw new \InvalidArgumentException('Invalid HTTP method "' . \addcslashes($method, "\0..\37\177..\377") . '"');
        }

        return $method;
    }

    /**
     * The query of a request target as PHP would fill $_GET: the part after the first "?", up
     * to a "#".
     *
     * @return array<array-key, mixed>
     */
    private static function parseQuery(string $target): array
    {
        $start = \strpos($target, '?');
        if ($start === false) {
            return [];
        }
        $query = \substr($target, $start + 1);
        $hash = \strpos($query, '#');
        \parse_str($hash === false ? $query : \substr($query, 0, $hash), $params);

        return $params;
    }

    /**
     * Cookie pairs as PHP would fill $_COOKIE for the common cases: "name=value" separated by
     * ";", values URL-decoded and unquoted; the first of two equal names wins.
     *
     * @return array<string, string>
     */
    /**
     * The Cookie header as PHP fills $_COOKIE: pairs split at ";", leading blanks of a name
     * dropped, values percent-decoded but otherwise kept as sent (quotes and blanks too), a pair
     * without "=" an empty value, the first of two pairs of one name kept ("a[]" appends), names with
     * brackets nested and "." or " " in names turned into "_" by PHP's own parse_str().
     *
     * @return array<array-key, mixed>
     */
    private static function parseCookies(string $header): array
    {
        $pairs = [];
        $seen = [];
        foreach (\explode(';', $header) as $pair) {
            $equals = \strpos($pair, '=');
            $name = \ltrim($equals === false ? $pair : \substr($pair, 0, $equals), " \t");
            if ($name === '' || isset($seen[$name])) {
                continue;
            }
            if (!\str_ends_with($name, '[]')) {
                $seen[$name] = true; // "a[]" appends, as PHP's does
            }
            $value = $equals === false ? '' : \rawurldecode(\substr($pair, $equals + 1));
            $pairs[] = \rawurlencode(\rawurldecode($name)) . '=' . \rawurlencode($value);
        }
        $cookies = [];
        if ($pairs !== []) {
            @\parse_str(\implode('&', $pairs), $cookies);
        }

        return $cookies;
    }

    /**
     * @param array<array-key, mixed> $files
     * @throws \InvalidArgumentException
     */
    private static function assertUploadedFiles(array $files): void
    {
        foreach ($files as $file) {
            if (\is_array($file)) {
                self::assertUploadedFiles($file);
            } elseif (!$file instanceof UploadedFileInterface) {
                throw new \InvalidArgumentException('Uploaded files must be UploadedFileInterface instances (in nested arrays)');
            }
        }
    }
}
