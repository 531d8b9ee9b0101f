<?php

declare(strict_types=1);

namespace Bobbin\Tarantool\Internal;

use Bobbin\MessagePack\Decoder;
use Bobbin\MessagePack\MessagePackException;
use Bobbin\Pool\ReadStatement;

/**
 * What a request cancelled after its frame left may have done, for the outcome its caller is
 * told (docs/CLIENTS.md section 5). IPROTO cannot stop a request: it runs to its end whatever
 * the client does. A read changed nothing, so its caller gets the plain cancellation at once
 * ("not done" is true of it); anything that may write — insert, replace, update, upsert,
 * delete, commit, and call, eval or SQL whose effect the client cannot see — waits up to
 * SETTLE_SECONDS for its answer (Session::request()). Pure.
 *
 * @internal
 */
final class CancelledRequest
{
    /** As the SQL clients' (Mysql\Connection, Postgres\Internal\CancelledStatement). */
    public const SETTLE_SECONDS = 1.0;

    /**
     * Request types that may change data. Not here: select, ping and the schema reads; auth,
     * prepare and unprepare (no data); begin (a transaction nobody goes on with commits nothing)
     * and rollback (taken effect or not, the transaction's writes are not kept).
     */
    private const MAY_WRITE = [
        Iproto::INSERT => true,
        Iproto::REPLACE => true,
        Iproto::UPDATE => true,
        Iproto::DELETE => true,
        Iproto::UPSERT => true,
        Iproto::CALL => true,
        Iproto::EVAL => true,
        Iproto::EXECUTE => true,
        Iproto::COMMIT => true,
    ];

    private function __construct()
    {
    }

    /** Whether the request of $type with $body (its MessagePack map) may have changed data. */
    public static function mayWrite(int $type, string $body, Decoder $decoder): bool
    {
        if (!isset(self::MAY_WRITE[$type])) {
            return false;
        }
        if ($type !== Iproto::EXECUTE || !isset($body[1]) || $body[1] !== "\x40") {
            return true; // a prepared statement's id says nothing of what it does
        }
        // EXECUTE by text (RequestEncoder::execute(): SQL_TEXT first): a SELECT is a read.
        try {
            $offset = 2;
            $sql = $decoder->decodeAt($body, $offset);
        } catch (MessagePackException) {
            return true;
        }

        return !\is_string($sql) || !ReadStatement::matches($sql);
    }
}
