<?php

declare(strict_types=1);

namespace Bobbin\Ipc\Codec;

/**
 * Where a decoder hands the answers it finds: the connection (on to its Async\SharedReader), or a list
 * in a test.
 *
 * @internal
 */
interface ResponseSink
{
    /** The answer to request $id ($id: the socket's request number or the ring record's id). */
    public function deliver(int $id, string $payload): void;
}
