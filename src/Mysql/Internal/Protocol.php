<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Internal;

/**
 * Numbers of the MySQL/MariaDB client/server protocol: capability and status flags, commands,
 * column types (from the protocol documentation of both servers).
 *
 * @internal
 */
final class Protocol
{
    public const CLIENT_MYSQL = 1;
    public const CLIENT_FOUND_ROWS = 2;
    public const CLIENT_LONG_FLAG = 4;
    public const CLIENT_CONNECT_WITH_DB = 8;
    public const CLIENT_LOCAL_FILES = 128;
    public const CLIENT_PROTOCOL_41 = 512;
    public const CLIENT_SSL = 2048;
    public const CLIENT_TRANSACTIONS = 8192;
    public const CLIENT_SECURE_CONNECTION = 32768;
    public const CLIENT_MULTI_STATEMENTS = 1 << 16;
    public const CLIENT_MULTI_RESULTS = 1 << 17;
    public const CLIENT_PS_MULTI_RESULTS = 1 << 18;
    public const CLIENT_PLUGIN_AUTH = 1 << 19;
    public const CLIENT_CONNECT_ATTRS = 1 << 20;
    public const CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA = 1 << 21;
    public const CLIENT_SESSION_TRACK = 1 << 23;
    public const CLIENT_DEPRECATE_EOF = 1 << 24;

    /** MariaDB's own capability flags (the greeting's and the response's extra 32 bits). */
    public const MARIADB_CLIENT_EXTENDED_METADATA = 8;
    /** Result sets of a prepared statement leave out column definitions the client already has. */
    public const MARIADB_CLIENT_CACHE_METADATA = 16;

    public const SERVER_STATUS_IN_TRANS = 0x0001;
    public const SERVER_STATUS_AUTOCOMMIT = 0x0002;
    public const SERVER_MORE_RESULTS_EXISTS = 0x0008;
    public const SERVER_SESSION_STATE_CHANGED = 0x4000;

    public const COM_QUIT = 0x01;
    public const COM_INIT_DB = 0x02;
    public const COM_QUERY = 0x03;
    public const COM_PING = 0x0e;
    public const COM_STMT_PREPARE = 0x16;
    public const COM_STMT_EXECUTE = 0x17;
    public const COM_STMT_CLOSE = 0x19;
    public const COM_RESET_CONNECTION = 0x1f;

    public const TYPE_DECIMAL = 0x00;
    public const TYPE_TINY = 0x01;
    public const TYPE_SHORT = 0x02;
    public const TYPE_LONG = 0x03;
    public const TYPE_FLOAT = 0x04;
    public const TYPE_DOUBLE = 0x05;
    public const TYPE_NULL = 0x06;
    public const TYPE_TIMESTAMP = 0x07;
    public const TYPE_LONGLONG = 0x08;
    public const TYPE_INT24 = 0x09;
    public const TYPE_DATE = 0x0a;
    public const TYPE_TIME = 0x0b;
    public const TYPE_DATETIME = 0x0c;
    public const TYPE_YEAR = 0x0d;
    public const TYPE_NEWDATE = 0x0e;
    public const TYPE_VARCHAR = 0x0f;
    public const TYPE_BIT = 0x10;
    public const TYPE_JSON = 0xf5;
    public const TYPE_NEWDECIMAL = 0xf6;
    public const TYPE_ENUM = 0xf7;
    public const TYPE_SET = 0xf8;
    public const TYPE_TINY_BLOB = 0xf9;
    public const TYPE_MEDIUM_BLOB = 0xfa;
    public const TYPE_LONG_BLOB = 0xfb;
    public const TYPE_BLOB = 0xfc;
    public const TYPE_VAR_STRING = 0xfd;
    public const TYPE_STRING = 0xfe;
    public const TYPE_GEOMETRY = 0xff;

    public const FLAG_UNSIGNED = 32;

    /** utf8mb4_general_ci: every Unicode character, accepted by MySQL 5.5.3+ and MariaDB. */
    public const CHARSET_UTF8MB4 = 45;
    public const CHARSET_BINARY = 63;

    /** The largest payload one packet carries; a longer one continues in the next packets. */
    public const MAX_PACKET_PAYLOAD = 0xffffff;
}
