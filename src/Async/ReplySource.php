<?php

declare(strict_types=1);

namespace Bobbin\Async;

/**
 * What a SharedReader's reader reads: a connection. Passed to every await() rather than kept as
 * a closure in a property, which would tie the connection to itself (a cycle only the garbage
 * collector frees).
 */
interface ReplySource
{
    /**
     * Reads what arrives next (waiting for it when nothing has) and hands each answer found to
     * SharedReader::deliver(); throws when the connection is gone. $first: the first read of this
     * fiber's turn as the reader (right after a request nothing can have arrived yet).
     */
    public function readReplies(?Cancellation $cancellation, bool $first): void;
}
