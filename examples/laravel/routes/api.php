<?php

/*
 * Stateless JSON routes (the "api" middleware group: no session, no cookies), under /api.
 * The frameworks benchmark reads /api/items/{id} (bench/frameworks/run.php).
 */

use Illuminate\Support\Facades\DB;
use Illuminate\Support\Facades\Route;

Route::get('/items/{id}', static function (string $id) {
    $item = DB::table('fw_items')->where('id', (int) $id)->first();

    return $item === null ? response()->json(['error' => 'not found'], 404) : response()->json($item);
});
