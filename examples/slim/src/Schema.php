<?php

declare(strict_types=1);

namespace App;

/** The tables the example's routes use. */
final class Schema
{
    /** Idempotent: a second run changes nothing. */
    public const CREATE = 'CREATE TABLE IF NOT EXISTS fw_items (id SERIAL PRIMARY KEY, name TEXT NOT NULL UNIQUE)';

    public static function create(): void
    {
        Database::pool()->query(self::CREATE);
    }
}
