<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Ipc;

use Bobbin\Async\ReplySink;

/** A ReplySink that keeps what it was handed, in order. */
final class CollectedResponses implements ReplySink
{
    /** @var list<array{int, string}> [id, payload] in the order delivered */
    public array $responses = [];

    public function deliver(int $key, mixed $answer): void
    {
        \assert(\is_string($answer));
        $this->responses[] = [$key, $answer];
    }
}
