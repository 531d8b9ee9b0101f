<?php

declare(strict_types=1);

namespace Bobbin\Pool;

/**
 * Tells a statement that only reads from its SQL text (its first keyword), for the outcome of a
 * cancelled statement: a read that finished anyway is reported as cancelled (it changed nothing,
 * and its caller asked to stop; an interrupted SLEEP() even "finishes" with 1), a write that
 * finished anyway as done (its result). A `WITH` may hide a write, so it is not a read. Pure.
 */
final class ReadStatement
{
    private const READ_KEYWORDS = ['SELECT' => true, 'SHOW' => true, 'VALUES' => true, 'TABLE' => true, 'DESCRIBE' => true, 'DESC' => true];

    private function __construct()
    {
    }

    public static function matches(string $sql): bool
    {
        // Comments and blank lines before the first keyword are skipped; "SELECT … FOR UPDATE" is a read too.
        $sql = (string) \preg_replace('~\A(?:\s+|--[^\n]*\n|/\*.*?\*/)*~s', '', $sql);
        $keyword = \strtoupper((string) \strtok(\substr($sql, 0, 16), " \t\r\n(;"));

        return isset(self::READ_KEYWORDS[$keyword]);
    }
}
