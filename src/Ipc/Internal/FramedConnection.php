<?php

declare(strict_types=1);

namespace Bobbin\Ipc\Internal;

use Bobbin\Async\Cancellation;

/**
 * One open channel to the daemon (a socket or a shared-memory ring) shared by many fibers. Each
 * connection matches its responses to its requests itself: a socket by order (the wire carries
 * no id), the shared-memory ring by the ids in its records.
 *
 * @internal
 */
interface FramedConnection
{
    public function isOpen(): bool;

    public function request(string $payload, ?Cancellation $cancellation): string;

    public function close(string $why = 'The IPC connection was closed'): void;
}
