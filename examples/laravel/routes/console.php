<?php

use Illuminate\Support\Facades\Artisan;
use Illuminate\Support\Facades\DB;

/*
 * Creates the tables the example uses (fw_items for /items), once before serving it:
 *   DATABASE_URL=… php artisan app:create-schema
 * Running it again changes nothing.
 */
Artisan::command('app:create-schema', function (): void {
    DB::statement('CREATE TABLE IF NOT EXISTS fw_items (id SERIAL PRIMARY KEY, name TEXT NOT NULL UNIQUE)');
    $this->info('fw_items is ready');
})->purpose('Create the tables the example uses (idempotent)');
