<?php

declare(strict_types=1);

namespace Bobbin\Async;

/**
 * Where a connection's decoder hands each answer it finds, by the key its caller waits under: a
 * SharedReader (so that a decoder calls it directly, without a method of the connection between),
 * or a list in a test.
 */
interface ReplySink
{
    public function deliver(int $key, mixed $answer): void;
}
