#!/usr/bin/env php
<?php

declare(strict_types=1);

/*
 * Creates the tables the example uses (fw_items for /items), once before serving it:
 *   DATABASE_URL=… php bin/create-schema.php
 * Running it again changes nothing.
 */

use App\Schema;
use Bobbin\Async\Async;

require_once \dirname(__DIR__) . '/vendor/autoload.php';

Async::installLoopDriver();
Schema::create();
echo "fw_items is ready\n";
