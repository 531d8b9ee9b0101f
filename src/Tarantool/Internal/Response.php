<?php

declare(strict_types=1);

namespace Bobbin\Tarantool\Internal;

/**
 * One frame from the server: its type (OK, CHUNK, or TYPE_ERROR | error code), the sync id of
 * the request it answers, the schema version it was made under, and its body. A body that did
 * not decode leaves $malformed set (the frame's length was still known, so the stream goes on).
 *
 * @internal
 */
final class Response
{
    /** @param array<int|string, mixed> $body */
    public function __construct(
        public readonly int $type,
        public readonly int $sync,
        public readonly int $schemaVersion,
        public readonly array $body,
        public readonly ?string $malformed = null,
    ) {
    }

    public function isError(): bool
    {
        return ($this->type & Iproto::TYPE_ERROR) !== 0;
    }

    public function errorCode(): int
    {
        return $this->type & 0x7FFF;
    }

    public function isPush(): bool
    {
        return $this->type === Iproto::CHUNK;
    }

    /** @return list<mixed> */
    public function data(): array
    {
        $data = $this->body[Iproto::DATA] ?? [];

        return \is_array($data) ? \array_values($data) : [$data];
    }
}
