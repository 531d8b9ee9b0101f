<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Ipc;

use Bobbin\Ipc\Codec\ResponseSink;

/** A ResponseSink that keeps what it was handed, in order. */
final class CollectedResponses implements ResponseSink
{
    /** @var list<array{int, string}> [id, payload] in the order delivered */
    public array $responses = [];

    public function deliver(int $id, string $payload): void
    {
        $this->responses[] = [$id, $payload];
    }
}
