<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Internal;

/**
 * Prepared statements to close on the server: evicted from the statement cache (the closer of
 * Bobbin\Sql\StatementCache) or never kept (no cache). COM_STMT_CLOSE has no answer, so the
 * packets wait here and go out in front of the connection's next command, costing no round trip.
 *
 * @internal
 */
final class PendingCloses
{
    /**
     * COM_STMT_CLOSE packets waiting for the next command: read by the connection on every
     * statement (a call only when there are some), taken with take().
     *
     * @var string
     */
    public $packets = '';

    public function add(PreparedStatement $statement): void
    {
        // A command packet of its own: sequence 0, 5 bytes.
        $this->packets .= \pack('VCV', 5, Protocol::COM_STMT_CLOSE, $statement->id);
    }

    /** The packets to send ahead of the next command, handed over once. */
    public function take(): string
    {
        $packets = $this->packets;
        $this->packets = '';

        return $packets;
    }

    /** The session was reset or lost: its statements are gone with it. */
    public function clear(): void
    {
        $this->packets = '';
    }
}
