<?php

declare(strict_types=1);

namespace Bobbin\Pool;

use Bobbin\Async\Cancellation;
use Bobbin\Async\Future;

/**
 * What a Pool needs to know about one kind of connection: how to open, check, ping and close
 * it, and whether it came back fit for the next borrower. The pool owns the waiting, the
 * counting and the timing; the connector owns everything the wire protocol decides.
 *
 * @template C of object
 */
interface Connector
{
    /**
     * Opens one connection, bounded by its own connect timeout.
     *
     * @return C
     */
    public function open(?Cancellation $cancellation): object;

    /**
     * Whether the server closed it while idle, without a round trip (Async\IdleSocketPeek: a
     * peek, or what the loop's last poll saw): asked at every checkout, so it must cost well
     * under a microsecond.
     *
     * @param C $connection
     */
    public function isAlive(object $connection): bool;

    /**
     * A real round trip, for connections idle longer than the pool's checkAfterIdle.
     *
     * @param C $connection
     */
    public function ping(object $connection): bool;

    /**
     * Asked when a connection comes back: null when it can go to the next borrower as it is;
     * a future completing when it can (an abandoned statement drained, a session reset);
     * false when it must be closed (broken, left in a state that cannot be undone).
     *
     * @param C $connection
     * @return Future<mixed>|false|null
     */
    public function prepareForReuse(object $connection): Future|false|null;

    /** @param C $connection */
    public function close(object $connection): void;

    /** @param C $connection */
    public function openedAt(object $connection): float;

    /** @param C $connection */
    public function lastUsedAt(object $connection): float;
}
