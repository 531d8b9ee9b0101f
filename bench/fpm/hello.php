<?php

declare(strict_types=1);

/*
 * examples/hello.php as a PHP-FPM front controller, for the hello-world comparison:
 * apps/aircraft/fpm/ctl start --front-controller=bench/fpm/hello.php
 * The same application closure and the same SAPI bridge the aircraft front controller uses.
 */

use Bobbin\Http\ClosureHandler;
use Bobbin\Http\Sapi\SapiRunner;

require_once \dirname(__DIR__, 2) . '/vendor/autoload.php';
Bobbin\Async\Async::installLoopDriver(); // docs/ASYNC.md: the autoloader leaves the loop alone

(new SapiRunner())->run(new ClosureHandler(require \dirname(__DIR__, 2) . '/examples/hello.php'));
