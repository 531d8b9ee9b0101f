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
    // Not readonly nor typed: one Response per answer, and PHP 8.2's JIT compiles neither a
    // readonly write nor a typed one inline (~60 instructions each). Nothing writes them after
    // the constructor.
    /** @var int */
    public $type;
    /** @var int */
    public $sync;
    /** @var int */
    public $schemaVersion;
    /** @var array<int|string, mixed> */
    public $body;
    /** @var string|null */
    public $malformed;

    /** @param array<int|string, mixed> $body */
    public function __construct(int $type, int $sync, int $schemaVersion, array $body, ?string $malformed = null)
    {
        $this->type = $type;
        $this->sync = $sync;
        $this->schemaVersion = $schemaVersion;
        $this->body = $body;
        $this->malformed = $malformed;
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
