<?php

declare(strict_types=1);

/*
 * The same Slim application under PHP-FPM (nginx rewrites every path here): the handler runs in
 * a fiber and Bobbin's loop is driven until it completes, so the database and timer waits of the
 * routes run unchanged (in blocking mode).
 */

use Bobbin\Http\Sapi\SapiRunner;

$app = require \dirname(__DIR__) . '/app.php';
(new SapiRunner())->run($app);
