<?php
/*
 * The connection, as legacy code keeps it: a persistent one (one per FPM child; one per Bobbin
 * worker with --legacy-shared-state, where this file runs once per worker because it is loaded
 * with require_once; one per request with --legacy, whose process ends with its request).
 */

function bench_db()
{
    static $db = null;

    return $db ??= pg_pconnect((string) getenv('DATABASE_URL'));
}
