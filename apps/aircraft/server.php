<?php

declare(strict_types=1);

/*
 * The aircraft application as an APP_FILE for `bin/bobbin serve`: built once per worker, with a
 * pool of non-blocking PostgreSQL connections shared by every request the worker serves.
 */

use Bobbin\Apps\Aircraft\AircraftConfig;
use Bobbin\Apps\Aircraft\AircraftServices;
use Bobbin\Apps\Aircraft\Http\AircraftApplication;
use Bobbin\Http\StderrLogger;
use Bobbin\Postgres\ConnectionPool;
use Bobbin\Postgres\PoolConfig;

require_once \dirname(__DIR__, 2) . '/vendor/autoload.php';

$config = AircraftConfig::fromEnvironment(\getenv());
$pool = new ConnectionPool(PoolConfig::fromConnectionString(
    $config->databaseUrl,
    maxSize: $config->poolMax,
    acquireTimeout: $config->poolWait,
));

return AircraftServices::container(static fn () => $pool, new StderrLogger())->get(AircraftApplication::class);
