<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support;

/** A response as a test client saw it on the wire. */
final class HttpResponse
{
    /** @param array<string, list<string>> $headers lower-cased names */
    public function __construct(
        public readonly int $status,
        public readonly array $headers,
        public readonly string $body,
    ) {
    }

    public function header(string $name): ?string
    {
        return $this->headers[\strtolower($name)][0] ?? null;
    }

    /** @return mixed the decoded JSON body */
    public function json(): mixed
    {
        return \json_decode($this->body, true, 512, \JSON_THROW_ON_ERROR);
    }
}
