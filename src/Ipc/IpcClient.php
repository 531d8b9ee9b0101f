<?php

declare(strict_types=1);

namespace Bobbin\Ipc;

use Bobbin\Async\Cancellation;
use Bobbin\Async\CancelledException;

/**
 * A request/response channel to the native daemon. One instance is shared by many fibers: their
 * requests travel concurrently over one connection and are matched to responses by request id.
 * Outside any fiber (a plain script, PHP-FPM) every call simply blocks until it is done.
 */
interface IpcClient
{
    /**
     * @throws ConnectionLostException when the daemon goes away before answering (the next
     *         request reconnects)
     * @throws IpcException when the daemon cannot be reached or the payload cannot be sent
     * @throws CancelledException when $cancellation fires first (the answer is discarded)
     */
    public function request(string $payload, ?Cancellation $cancellation = null): string;

    /** Closes the connection; fibers still waiting get a ConnectionLostException. */
    public function close(): void;
}
