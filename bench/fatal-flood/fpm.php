<?php

declare(strict_types=1);

/*
 * bench/fatal-flood/app.php as a PHP-FPM front controller:
 * apps/aircraft/fpm/ctl start --front-controller=bench/fatal-flood/fpm.php --memory-limit=64M
 * The same closure and the same SAPI bridge as the aircraft front controller.
 */

use Bobbin\Http\ClosureHandler;
use Bobbin\Http\Sapi\SapiRunner;

require_once \dirname(__DIR__, 2) . '/vendor/autoload.php';

(new SapiRunner())->run(new ClosureHandler(require __DIR__ . '/app.php'));
