<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Http;

use Nyholm\Psr7\Stream;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\StreamInterface;

/**
 * A PSR-7 response that validates nothing, as a careless implementation (or a bug in one)
 * would: whatever header names and values it is given are what the server sees.
 */
final class UncheckedResponse implements ResponseInterface
{
    /** @param array<string, list<string>> $headers */
    public function __construct(private int $status, private array $headers, private string $body = '')
    {
    }

    public function getProtocolVersion(): string
    {
        return '1.1';
    }

    public function withProtocolVersion(string $version): static
    {
        return $this;
    }

    public function getHeaders(): array
    {
        return $this->headers;
    }

    public function hasHeader(string $name): bool
    {
        return isset($this->headers[$name]);
    }

    public function getHeader(string $name): array
    {
        return $this->headers[$name] ?? [];
    }

    public function getHeaderLine(string $name): string
    {
        return \implode(', ', $this->getHeader($name));
    }

    public function withHeader(string $name, $value): static
    {
        $new = clone $this;
        $new->headers[$name] = \is_array($value) ? \array_values(\array_map('strval', $value)) : [(string) $value];

        return $new;
    }

    public function withAddedHeader(string $name, $value): static
    {
        return $this->withHeader($name, [...$this->getHeader($name), ...(\is_array($value) ? $value : [$value])]);
    }

    public function withoutHeader(string $name): static
    {
        $new = clone $this;
        unset($new->headers[$name]);

        return $new;
    }

    public function getBody(): StreamInterface
    {
        return Stream::create($this->body);
    }

    public function withBody(StreamInterface $body): static
    {
        $new = clone $this;
        $new->body = (string) $body;

        return $new;
    }

    public function getStatusCode(): int
    {
        return $this->status;
    }

    public function withStatus(int $code, string $reasonPhrase = ''): static
    {
        $new = clone $this;
        $new->status = $code;

        return $new;
    }

    public function getReasonPhrase(): string
    {
        return '';
    }
}
