<?php

declare(strict_types=1);

namespace Bobbin\Http;

use Closure;

/**
 * A response body whose producer runs in a fiber of its own and may call flush() without ever
 * waiting on the loop (a framework's streamed callback with a blocking sleep): the server gives
 * it a function to call at such a flush, in the producer's fiber, while the server's writer
 * waits in read() and what was produced is buffered; that function read()s the body (which
 * returns at once) and writes without waiting (ResponseBodyWriter).
 *
 * @internal implemented by the framework adapters' StreamedBody, used by ResponseBodyWriter
 */
interface FlushableBody
{
    /** @param (Closure(): void)|null $send null when the writer is done with the body */
    public function whenFlushed(?Closure $send): void;
}
