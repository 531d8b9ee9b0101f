<?php

declare(strict_types=1);

namespace Bobbin\Http\Message;

use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\StreamInterface;

/**
 * An immutable PSR-7 response. A string body stays a string until getBody() is called and is
 * then a StringStream, which the server writes without going through the stream API.
 */
final class Response implements ResponseInterface
{
    use MessageMethods;

    // Untyped, typed by @var: written for every response (docs/ASYNC.md, Rules).
    /** @var int */
    private $status = 200;
    /** @var string */
    private $reasonPhrase = '';

    /**
     * @param array<string, string|int|float|list<string|int|float>> $headers name => value or values
     * @param string $reasonPhrase '' for the standard phrase of $status
     * @throws \InvalidArgumentException for a status outside 100–599 or an invalid header
     */
    public function __construct(
        int $status = 200,
        array $headers = [],
        string|StreamInterface $body = '',
        string $protocolVersion = '1.1',
        string $reasonPhrase = '',
    ) {
        $this->setStatus($status, $reasonPhrase);
        if ($headers !== [] && HeaderRules::areKnownPlainFields($headers)) {
            // The usual response: fields checked before, kept as given until read (headerNames()).
            $this->plainHeaders = $headers;
        } else {
            $this->setHeaders($headers); // a loop of its own: the usual response's trace has none
        }
        if (\is_string($body)) {
            $this->content = $body;
        } else {
            $this->body = $body;
        }
        if ($protocolVersion !== '1.1') {
            $this->protocolVersion = self::validProtocolVersion($protocolVersion);
        }
    }

    /**
     * The fields as given (name => value) while they are plain (MessageMethods::$plainHeaders):
     * for the server's framer, which writes them without the arrays getHeaders() would make;
     * null otherwise (getHeaders() then).
     *
     * @internal used by Bobbin\Http\ResponseFramer
     * @return array<string, string>|null
     */
    public function plainHeaders(): ?array
    {
        return $this->plainHeaders;
    }

    /**
     * The body as the string it was given, while no stream has been asked for (getBody() not
     * called); null otherwise. For the server's framer: a small string body joins the head's
     * write without a StringStream made per response.
     *
     * @internal used by Bobbin\Http\ResponseFramer
     */
    public function unstreamedBody(): ?string
    {
        return $this->body === null ? $this->content : null;
    }

    public function getStatusCode(): int
    {
        return $this->status;
    }

    public function getReasonPhrase(): string
    {
        return $this->reasonPhrase;
    }

    /**
     * @param array<array-key, mixed> $headers name => value or values
     * @throws \InvalidArgumentException for an invalid header
     */
    private function setHeaders(array $headers): void
    {
        $this->headerNames = [];
        foreach ($headers as $name => $value) {
            $name = (string) $name;
            $lower = HeaderRules::lowerName($name);
            if (isset($this->headerNames[$lower])) {
                $stored = $this->headerNames[$lower];
                $this->headers[$stored] = [...$this->headers[$stored], ...HeaderRules::values($value)];
            } else {
                $this->headers[$name] = HeaderRules::values($value);
                $this->headerNames[$lower] = $name;
            }
        }
    }

    /** @throws \InvalidArgumentException for a status outside 100–599 or a reason with control characters */
    public function withStatus(int $code, string $reasonPhrase = ''): static
    {
        $new = clone $this;
        $new->setStatus($code, $reasonPhrase);

        return $new;
    }

    /** @throws \InvalidArgumentException */
    private function setStatus(int $code, string $reasonPhrase): void
    {
        if ($code < 100 || $code > 599) {
            throw new \InvalidArgumentException("Status code $code is not between 100 and 599");
        }
        if ($reasonPhrase === '') {
            $reasonPhrase = StatusReason::PHRASES[$code] ?? ''; // StatusReason::for(), without the static call
        } elseif (!HeaderRules::hasNoControlCharacters($reasonPhrase)) {
            // It goes on the status line: a line break would forge headers.
            throw new \InvalidArgumentException('The reason phrase must not contain control characters');
        }
        $this->status = $code;
        $this->reasonPhrase = $reasonPhrase;
    }
}
