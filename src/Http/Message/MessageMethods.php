<?php

declare(strict_types=1);

namespace Bobbin\Http\Message;

use Psr\Http\Message\StreamInterface;

/**
 * What requests and responses share (PSR-7 MessageInterface): protocol version, headers, body.
 *
 * Headers are kept in the shape the HTTP parser produces — name as sent => list of values —
 * so the server hands its array over without copying it. The case-insensitive lookup map
 * (lower-case name => name as stored) is built on the first lookup only; most requests are
 * answered without the application reading a single header by name.
 *
 * The body is kept as a string until someone asks for the stream.
 *
 * @internal
 */
trait MessageMethods
{
    // Untyped, typed by @var: the server writes these for every request it reads, and PHP 8.2's
    // tracing JIT calls a checking helper for each write to a typed property (docs/ASYNC.md, Rules).
    /** @var string */
    private $protocolVersion = '1.1';
    /** @var array<string, list<string>> */
    private $headers = [];
    /** @var array<string, string>|null lower-case name => name as stored in $headers; null until first needed */
    private ?array $headerNames = null;
    /**
     * Response's: the headers as given to its constructor while each is one string that
     * HeaderRules knows valid (name => value), until first read; $headers and $headerNames are
     * made from them then (headerNames()). The server frames them as they are
     * (Response::plainHeaders()), so the usual response builds no array per field.
     *
     * @var array<string, string>|null
     */
    private $plainHeaders = null;
    private ?StreamInterface $body = null;
    /** @var string the body while no stream has been asked for */
    private $content = '';

    public function getProtocolVersion(): string
    {
        return $this->protocolVersion;
    }

    /** @throws \InvalidArgumentException for anything but a version number such as "1.1" or "2" */
    public function withProtocolVersion(string $version): static
    {
        $new = clone $this;
        $new->protocolVersion = self::validProtocolVersion($version);

        return $new;
    }

    /** @return array<string, list<string>> */
    public function getHeaders(): array
    {
        $this->headerNames(); // merges fields that differ only in case

        return $this->headers;
    }

    public function hasHeader(string $name): bool
    {
        return isset($this->headerNames()[\strtolower($name)]);
    }

    /** @return list<string> */
    public function getHeader(string $name): array
    {
        $stored = $this->headerNames()[\strtolower($name)] ?? null;

        return $stored === null ? [] : $this->headers[$stored];
    }

    public function getHeaderLine(string $name): string
    {
        return \implode(', ', $this->getHeader($name));
    }

    /** @throws \InvalidArgumentException for an invalid name or value */
    public function withHeader(string $name, $value): static
    {
        $lower = HeaderRules::lowerName($name);
        $values = HeaderRules::values($value);
        $new = clone $this;
        $names = $new->headerNames ?? $new->headerNames();
        if (isset($names[$lower])) {
            unset($new->headers[$names[$lower]]);
        }
        $new->headers[$name] = $values;
        $new->headerNames[$lower] = $name;

        return $new;
    }

    /** @throws \InvalidArgumentException for an invalid name or value */
    public function withAddedHeader(string $name, $value): static
    {
        $lower = HeaderRules::lowerName($name);
        $values = HeaderRules::values($value);
        $new = clone $this;
        $names = $new->headerNames ?? $new->headerNames();
        if (isset($names[$lower])) {
            $stored = $names[$lower];
            $new->headers[$stored] = [...$new->headers[$stored], ...$values];
        } else {
            $new->headers[$name] = $values;
            $new->headerNames[$lower] = $name;
        }

        return $new;
    }

    public function withoutHeader(string $name): static
    {
        $lower = \strtolower($name);
        $stored = $this->headerNames()[$lower] ?? null;
        if ($stored === null) {
            return $this;
        }
        $new = clone $this;
        unset($new->headers[$stored], $new->headerNames[$lower]);

        return $new;
    }

    public function getBody(): StreamInterface
    {
        return $this->body ??= new StringStream($this->content);
    }

    public function withBody(StreamInterface $body): static
    {
        $new = clone $this;
        $new->body = $body;
        $new->content = '';

        return $new;
    }

    /** @throws \InvalidArgumentException */
    private static function validProtocolVersion(string $version): string
    {
        if (\preg_match('/^[0-9]+(?:\.[0-9]+)?$/D', $version) !== 1) {
            throw new \InvalidArgumentException("Invalid HTTP protocol version \"$version\"");
        }

        return $version;
    }

    /**
     * The lookup map, built on first use. Fields whose names differ only in case are one field
     * (RFC 9110 §5.1), so they are merged here under the first spelling, keeping value order.
     *
     * @return array<string, string>
     */
    private function headerNames(): array
    {
        if ($this->headerNames !== null) {
            return $this->headerNames;
        }
        if ($this->plainHeaders !== null) {
            foreach ($this->plainHeaders as $name => $value) {
                $this->headers[$name] = [$value];
            }
            $this->plainHeaders = null;
        }
        $names = [];
        foreach ($this->headers as $name => $values) {
            $name = (string) $name; // a numeric name such as "123" is an int key in a PHP array
            $lower = \strtolower($name);
            if (isset($names[$lower])) {
                $first = $names[$lower];
                $this->headers[$first] = [...$this->headers[$first], ...$values];
                unset($this->headers[$name]);
            } else {
                $names[$lower] = $name;
            }
        }

        return $this->headerNames = $names;
    }
}
