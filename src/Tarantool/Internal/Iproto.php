<?php

declare(strict_types=1);

namespace Bobbin\Tarantool\Internal;

/**
 * The numbers of Tarantool's binary protocol (IPROTO): request types, header and body keys.
 *
 * @internal
 */
final class Iproto
{
    // Request types (header key REQUEST_TYPE); a response's type is OK, CHUNK or TYPE_ERROR | code.
    public const OK = 0x00;
    public const SELECT = 0x01;
    public const INSERT = 0x02;
    public const REPLACE = 0x03;
    public const UPDATE = 0x04;
    public const DELETE = 0x05;
    public const AUTH = 0x07;
    public const EVAL = 0x08;
    public const UPSERT = 0x09;
    public const CALL = 0x0A;
    public const EXECUTE = 0x0B;
    public const PREPARE = 0x0D;
    public const BEGIN = 0x0E;
    public const COMMIT = 0x0F;
    public const ROLLBACK = 0x10;
    public const PING = 0x40;
    public const ID = 0x49;
    public const WATCH = 0x4A;
    public const UNWATCH = 0x4B;
    public const EVENT = 0x4C;
    public const CHUNK = 0x80;
    public const TYPE_ERROR = 0x8000;

    // Header keys.
    public const REQUEST_TYPE = 0x00;
    public const SYNC = 0x01;
    public const SCHEMA_VERSION = 0x05;
    public const STREAM_ID = 0x0A;

    // Body keys.
    public const SPACE_ID = 0x10;
    public const INDEX_ID = 0x11;
    public const LIMIT = 0x12;
    public const OFFSET = 0x13;
    public const ITERATOR = 0x14;
    public const KEY = 0x20;
    public const TUPLE = 0x21;
    public const FUNCTION_NAME = 0x22;
    public const USER_NAME = 0x23;
    public const EXPR = 0x27;
    public const OPS = 0x28;
    public const DATA = 0x30;
    public const ERROR_24 = 0x31;
    public const METADATA = 0x32;
    public const BIND_METADATA = 0x33;
    public const BIND_COUNT = 0x34;
    public const SQL_TEXT = 0x40;
    public const SQL_BIND = 0x41;
    public const SQL_INFO = 0x42;
    public const STMT_ID = 0x43;
    public const ERROR = 0x52;
    public const VERSION = 0x54;
    public const FEATURES = 0x55;
    public const TIMEOUT = 0x56;
    public const EVENT_KEY = 0x57;
    public const EVENT_DATA = 0x58;
    public const TXN_ISOLATION = 0x59;

    // SQL_INFO keys.
    public const SQL_INFO_ROW_COUNT = 0x00;
    public const SQL_INFO_AUTOINCREMENT_IDS = 0x01;

    // METADATA entry keys.
    public const FIELD_NAME = 0x00;
    public const FIELD_TYPE = 0x01;
    public const FIELD_COLL = 0x02;
    public const FIELD_IS_NULLABLE = 0x03;
    public const FIELD_IS_AUTOINCREMENT = 0x04;
    public const FIELD_SPAN = 0x05;

    // System spaces read by the schema cache (the views a user may read).
    public const VSPACE = 281;
    public const VINDEX = 289;

    /** Error codes the client acts on. */
    public const ER_TUPLE_FOUND = 3;
    public const ER_ACCESS_DENIED = 42;
    public const ER_NO_SUCH_USER = 45;
    public const ER_PASSWORD_MISMATCH = 47;
    public const ER_TRANSACTION_CONFLICT = 97;
    public const ER_WRONG_SCHEMA_VERSION = 109;
    /** "Instance bootstrap hasn't finished yet": the server is starting (recovery, bootstrap, joining). */
    public const ER_LOADING = 116;
}
