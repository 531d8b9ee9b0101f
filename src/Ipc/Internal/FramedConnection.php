<?php

declare(strict_types=1);

namespace Bobbin\Ipc\Internal;

use Bobbin\Async\Cancellation;

/**
 * One open channel to the daemon (a socket or a shared-memory ring) carrying requests matched
 * to responses by id.
 *
 * @internal
 */
interface FramedConnection
{
    public function isOpen(): bool;

    public function request(int $id, string $payload, ?Cancellation $cancellation): string;

    public function close(string $why = 'The IPC connection was closed'): void;
}
